'use client';

import { Share2 } from 'lucide-react';

import { Button, EmptyState, Notice, Spinner } from '@/app/_components/ui';

import { ShareLinkList } from './share-link-list';
import { SHARES_EMPTY } from './share-view';
import { useShareLinks } from './use-share-links';

/** Every link the person made, across conversations, newest first: what each shows, Update to newest, Revoke. */
export function SharesPage() {
  const { links, loadError, reload, actions } = useShareLinks('/api/shares', 0);
  return (
    <div className="h-full overflow-y-auto">
      <div className="mx-auto max-w-3xl space-y-8 px-4 py-8 sm:py-12">
        <div className="min-w-0">
          <h1 className="text-2xl font-semibold tracking-tight">Shared links</h1>
          <p className="mt-1.5 text-[15px] text-muted">
            Links to read-only snapshots of your conversations. Whoever holds a link can read it until you revoke it or it expires.
          </p>
        </div>
        {loadError && (
          <Notice
            tone="error"
            actions={
              <Button size="sm" onClick={() => void reload()}>
                Try again
              </Button>
            }
          >
            {loadError}
          </Notice>
        )}
        {!links && !loadError && (
          <div className="flex justify-center py-12">
            <Spinner size="md" label="Loading shared links" />
          </div>
        )}
        {links && links.length === 0 && (
          <div className="rounded-card border border-dashed border-border-strong py-10">
            <EmptyState icon={Share2} title={SHARES_EMPTY.title} description={SHARES_EMPTY.description} />
          </div>
        )}
        {links && links.length > 0 && <ShareLinkList links={links} actions={actions} showConversation />}
      </div>
    </div>
  );
}
