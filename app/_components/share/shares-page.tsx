'use client';

import { Share2 } from 'lucide-react';

import { ListPage } from '@/app/_components/shell/list-page';

import { ShareLinkList } from './share-link-list';
import { SHARES_EMPTY } from './share-view';
import { useShareLinks } from './use-share-links';

/** Every link the person made, across conversations, newest first: what each shows, Update to newest, Revoke. */
export function SharesPage() {
  const { links, loadError, reload, actions } = useShareLinks('/api/shares', 0);
  return (
    <ListPage
      title="Shared links"
      description={
        <>Links to read-only snapshots of your conversations. Whoever holds a link can read it until you revoke it or it expires.</>
      }
      roomy
      items={links}
      loadError={loadError}
      onRetry={reload}
      loadingLabel="Loading shared links"
      empty={{ icon: Share2, ...SHARES_EMPTY }}
    >
      {links && <ShareLinkList links={links} actions={actions} showConversation />}
    </ListPage>
  );
}
