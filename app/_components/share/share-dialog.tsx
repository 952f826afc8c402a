'use client';

import { Link2 } from 'lucide-react';
import { useState } from 'react';

import { api, ApiError } from '@/app/_components/api';
import { Button, CopyField, Dialog, Field, HintedSwitch, Notice, RetryNotice, Select, Spinner } from '@/app/_components/ui';

import { ShareLinkList } from './share-link-list';
import {
  AUDIENCE,
  AUDIENCE_CHOICES,
  createShareBody,
  DEFAULT_SHARE_OPTIONS,
  EXPIRY_CHOICES,
  filesSentence,
  isAudience,
  isExpiry,
  toolDetailsSentence,
  URL_SHOWN_ONCE,
  type CreatedShare,
  type ShareOptions,
} from './share-view';
import { useShareLinks } from './use-share-links';

const SHARE_DESCRIPTION =
  'A link to a read-only snapshot of this conversation up to its last finished answer. Nothing else of your account goes with it.';

/**
 * Share a conversation: choose what a reader sees, make the link (its URL shown this once), and
 * manage the links already made for this conversation. `unavailable`: why no link can be made yet.
 */
export function ShareDialog({
  open,
  onClose,
  conversationId,
  title,
  unavailable,
  openCount,
}: {
  open: boolean;
  onClose: () => void;
  conversationId: string;
  title: string;
  unavailable: string | null;
  /** Changes each time the dialog opens: the list is read again then (a turn may have ended meanwhile). */
  openCount: number;
}) {
  const [options, setOptions] = useState<ShareOptions>(DEFAULT_SHARE_OPTIONS);
  const [created, setCreated] = useState<CreatedShare | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const { links, loadError, reload, actions, prepend } = useShareLinks(
    open ? `/api/conversations/${conversationId}/shares` : null,
    openCount,
  );

  async function create() {
    setBusy(true);
    setError('');
    try {
      const made = await api<CreatedShare>(`/api/conversations/${conversationId}/shares`, {
        method: 'POST',
        body: createShareBody(options),
      });
      setCreated(made);
      prepend(made.link);
    } catch (err) {
      setError(err instanceof ApiError ? err.message : 'Could not create the link.');
    } finally {
      setBusy(false);
    }
  }

  function close() {
    // The URL is shown once: closing forgets it, and the next opening starts from the options.
    setCreated(null);
    setError('');
    setOptions(DEFAULT_SHARE_OPTIONS);
    onClose();
  }

  return (
    <Dialog open={open} onClose={close} title={`Share “${title}”`} description={SHARE_DESCRIPTION} size="lg">
      <div className="max-h-[min(70dvh,40rem)] space-y-5 overflow-y-auto pb-5">
        {created ? (
          <div className="space-y-3" data-testid="share-created">
            <CopyField label="Your new link" id="share-url" value={created.url} copyLabel="Copy link" />
            <Notice tone="warning" role="status">
              {URL_SHOWN_ONCE}
            </Notice>
            <Button size="sm" onClick={() => setCreated(null)}>
              Make another link
            </Button>
          </div>
        ) : unavailable ? (
          <Notice tone="info">{unavailable}</Notice>
        ) : (
          <form
            className="space-y-4"
            onSubmit={(e) => {
              e.preventDefault();
              void create();
            }}
          >
            <HintedSwitch
              checked={options.includeToolDetails}
              onChange={(includeToolDetails) => setOptions((o) => ({ ...o, includeToolDetails }))}
              label="Include tool arguments and results"
              data-autofocus
              hint={toolDetailsSentence(options.includeToolDetails)}
            />
            <HintedSwitch
              checked={options.includeFiles}
              onChange={(includeFiles) => setOptions((o) => ({ ...o, includeFiles }))}
              label="Include attached files"
              hint={filesSentence(options.includeFiles)}
            />
            <div className="grid gap-4 sm:grid-cols-2">
              <Field label="Who can open it" hint={AUDIENCE[options.audience].hint}>
                <Select
                  value={options.audience}
                  onChange={(e) =>
                    isAudience(e.target.value) && setOptions((o) => ({ ...o, audience: e.target.value as ShareOptions['audience'] }))
                  }
                >
                  {AUDIENCE_CHOICES.map((c) => (
                    <option key={c.value} value={c.value}>
                      {c.label}
                    </option>
                  ))}
                </Select>
              </Field>
              <Field label="Expires after">
                <Select
                  value={options.expiresIn}
                  onChange={(e) =>
                    isExpiry(e.target.value) && setOptions((o) => ({ ...o, expiresIn: e.target.value as ShareOptions['expiresIn'] }))
                  }
                >
                  {EXPIRY_CHOICES.map((c) => (
                    <option key={c.value} value={c.value}>
                      {c.label}
                    </option>
                  ))}
                </Select>
              </Field>
            </div>
            {error && <Notice tone="error">{error}</Notice>}
            <Button type="submit" variant="primary" icon={Link2} loading={busy}>
              Create link
            </Button>
          </form>
        )}

        <section aria-labelledby="conversation-links" className="space-y-3 border-t border-border pt-4">
          <h3 id="conversation-links" className="text-sm font-semibold text-fg">
            Links to this conversation
          </h3>
          {loadError ? (
            <RetryNotice onRetry={reload}>{loadError}</RetryNotice>
          ) : !links ? (
            <Spinner label="Loading links" />
          ) : links.length === 0 ? (
            <p className="text-[13px] text-muted">No links yet. Each link you make is listed here, without its address.</p>
          ) : (
            <ShareLinkList links={links} actions={actions} />
          )}
        </section>
      </div>
    </Dialog>
  );
}
