'use client';

import { RefreshCw, Trash2 } from 'lucide-react';
import Link from 'next/link';
import { useRef, useState } from 'react';

import { ApiError } from '@/app/_components/api';
import { Badge, Button, ConfirmDialog, Notice } from '@/app/_components/ui';

import { describeLink, REVOKE_CONFIRM, type ShareLinkView } from './share-view';
import type { ShareLinkActions } from './use-share-links';
import { useWhen } from './use-when';

/**
 * The owner's links: when each was made, its options, its snapshot and what it leaves out, with
 * Update to newest and Revoke (asked first). Never a token: the owner saw it once, at creation.
 */
export function ShareLinkList({
  links,
  actions,
  showConversation = false,
}: {
  links: ShareLinkView[];
  actions: ShareLinkActions;
  /** On the Shared links page each row names and links its conversation. */
  showConversation?: boolean;
}) {
  const [revoking, setRevoking] = useState<ShareLinkView | null>(null);
  const [revokeBusy, setRevokeBusy] = useState(false);
  const [revokeError, setRevokeError] = useState('');

  async function revoke(link: ShareLinkView) {
    setRevokeBusy(true);
    setRevokeError('');
    try {
      await actions.revoke(link.id);
      setRevoking(null);
    } catch (err) {
      setRevokeError(err instanceof ApiError ? err.message : 'Could not revoke the link.');
    } finally {
      setRevokeBusy(false);
    }
  }

  return (
    <>
      <ul className="divide-y divide-border overflow-hidden rounded-card border border-border bg-surface shadow-card">
        {links.map((link) => (
          <ShareLinkRow
            key={link.id}
            link={link}
            onUpdate={actions.update}
            onRevoke={() => {
              setRevokeError('');
              setRevoking(link);
            }}
            showConversation={showConversation}
          />
        ))}
      </ul>
      <ConfirmDialog
        open={revoking !== null}
        onClose={() => setRevoking(null)}
        title={REVOKE_CONFIRM.title}
        description={REVOKE_CONFIRM.description}
        confirmLabel={REVOKE_CONFIRM.confirmLabel}
        tone="danger"
        busy={revokeBusy}
        onConfirm={() => revoking && void revoke(revoking)}
      >
        {revokeError && <Notice tone="error">{revokeError}</Notice>}
      </ConfirmDialog>
    </>
  );
}

function ShareLinkRow({
  link,
  onUpdate,
  onRevoke,
  showConversation,
}: {
  link: ShareLinkView;
  onUpdate: (id: string) => Promise<void>;
  onRevoke: () => void;
  showConversation: boolean;
}) {
  const when = useWhen();
  const [updating, setUpdating] = useState(false);
  const [error, setError] = useState('');
  const [updated, setUpdated] = useState(false);
  const revokeButton = useRef<HTMLButtonElement>(null);
  const words = describeLink(link, when);

  async function update() {
    setUpdating(true);
    setError('');
    try {
      await onUpdate(link.id);
      // The button goes away with nothing newer to add: keep the keyboard in this row, and say what happened.
      setUpdated(true);
      revokeButton.current?.focus();
    } catch (err) {
      setError(err instanceof ApiError ? err.message : 'Could not update the link.');
    } finally {
      setUpdating(false);
    }
  }

  return (
    <li className="space-y-2 px-4 py-3" data-testid="share-link">
      <div className="flex flex-wrap items-center gap-x-2 gap-y-1">
        {showConversation ? (
          <Link
            href={`/c/${link.conversationId}`}
            className="min-w-0 break-words text-sm font-semibold text-fg underline-offset-2 hover:underline"
          >
            {link.conversationTitle}
          </Link>
        ) : (
          <span className="text-sm font-medium text-fg">{words.created}</span>
        )}
        {words.expired && <Badge tone="danger">Expired</Badge>}
      </div>
      <div className="space-y-0.5 text-[13px] text-muted">
        {showConversation && <p>{words.created}</p>}
        <p>{words.options}</p>
        <p>{words.snapshot}</p>
        {words.newer && <p className="text-warning-text">{words.newer}</p>}
      </div>
      {error && <Notice tone="error">{error}</Notice>}
      <p className="sr-only" role="status">
        {updated ? 'The link now shows the newest finished answer.' : ''}
      </p>
      <div className="flex flex-wrap gap-2 pt-1">
        {words.canUpdate && (
          <Button size="sm" icon={RefreshCw} loading={updating} onClick={() => void update()}>
            Update to newest
          </Button>
        )}
        <Button ref={revokeButton} size="sm" variant="danger-subtle" icon={Trash2} onClick={onRevoke}>
          Revoke
        </Button>
      </div>
    </li>
  );
}
