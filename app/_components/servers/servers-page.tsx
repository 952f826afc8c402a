'use client';

import { Building2, FileUp, Plus, Power, Server } from 'lucide-react';
import { useCallback, useEffect, useState } from 'react';

import { api, ApiError } from '@/app/_components/api';
import { Badge, Button, Card, CardBody, CardFooter, CardHeader, EmptyState, Notice, RetryNotice, Spinner } from '@/app/_components/ui';
import type { SharedServerOffer } from '@/lib/servers/org-servers';

import { ImportDialog } from './import-dialog';
import { ServerCard } from './server-card';
import { ServerFormDialog } from './server-form-dialog';
import { signedInNotice, type OAuthReturn, type ServerList, type ServerView } from './server-view';

const EMPTY_DESCRIPTION =
  'An MCP server is a service that offers tools (search a tracker, query a database, post a message) ' +
  'which Claude can use on your behalf once you allow it.';

/** The servers page: the person's remote MCP servers, then the built-in ones (read-only). */
export function ServersPage({ oauthReturn = null }: { oauthReturn?: OAuthReturn | null }) {
  const [list, setList] = useState<ServerList | null>(null);
  const [loadError, setLoadError] = useState('');
  const [adding, setAdding] = useState(false);
  // A fresh form each time the dialog opens (a new key), while the dialog element stays mounted
  // so that closing it gives the focus back to the button that opened it.
  const [addKey, setAddKey] = useState(0);
  const [importing, setImporting] = useState(false);
  const [focusId, setFocusId] = useState<string | null>(null);
  const [oauthNotice, setOauthNotice] = useState(oauthReturn);
  const connected = oauthReturn?.kind === 'connected' ? list?.servers.find((s) => s.id === oauthReturn.serverId) : undefined;

  const load = useCallback(
    () =>
      api<ServerList>('/api/servers').then(
        (l) => (setList(l), setLoadError('')),
        (err) => setLoadError(err instanceof ApiError ? err.message : 'Could not load your servers.'),
      ),
    [],
  );
  useEffect(() => {
    void load();
  }, [load]);

  const replace = (server: ServerView) => setList((l) => l && { ...l, servers: l.servers.map((s) => (s.id === server.id ? server : s)) });
  const append = (added: ServerView[]) =>
    setList((l) => l && { ...l, servers: [...l.servers.filter((s) => !added.some((a) => a.id === s.id)), ...added] });
  const removed = (id: string) => setList((l) => l && { ...l, servers: l.servers.filter((s) => s.id !== id) });
  // A shared server turned off goes back to the offers (the list says which).
  const turnedOff = () => void load();
  // The offer becomes the person's server: its card goes from the offers as the server's card arrives.
  const turnedOn = (server: ServerView) =>
    setList(
      (l) =>
        l && {
          ...l,
          servers: [...l.servers.filter((s) => s.id !== server.id), server],
          shared: l.shared.filter((o) => o.id !== server.org?.serverId),
        },
    );
  const own = list?.servers.filter((s) => !s.org) ?? [];
  const shared = list?.servers.filter((s) => s.org) ?? [];
  // The new server's review takes the keyboard focus (and scrolls into view) once, after an add:
  // after the Add dialog has closed, since closing gives the focus back to whatever opened it.
  const focusReview = useCallback((el: HTMLHeadingElement | null) => {
    if (!el) return;
    setFocusId(null);
    const focus = () => setTimeout(() => el.focus(), 0);
    const dialog = document.querySelector('dialog[open]');
    if (dialog) dialog.addEventListener('close', focus, { once: true });
    else focus();
  }, []);

  const actions = (
    <div className="flex flex-wrap gap-2">
      <Button
        variant="primary"
        icon={Plus}
        onClick={() => {
          setAddKey((k) => k + 1);
          setAdding(true);
        }}
      >
        Add server
      </Button>
      <Button icon={FileUp} onClick={() => setImporting(true)}>
        Import
      </Button>
    </div>
  );

  return (
    <div className="h-full overflow-y-auto">
      <div className="mx-auto max-w-3xl space-y-8 px-4 py-8 sm:py-12">
        <div className="flex flex-wrap items-end justify-between gap-4">
          <div className="min-w-0">
            <h1 className="text-2xl font-semibold tracking-tight">Servers</h1>
            <p className="mt-1.5 text-[15px] text-muted">The MCP servers whose tools Claude can use in your conversations.</p>
          </div>
          {list && own.length > 0 && actions}
        </div>

        {oauthNotice && (
          <Notice
            tone={oauthNotice.kind === 'connected' ? 'success' : 'error'}
            role="status"
            actions={
              <Button size="sm" variant="ghost" onClick={() => setOauthNotice(null)}>
                Dismiss
              </Button>
            }
          >
            {oauthNotice.kind === 'connected' ? signedInNotice(connected) : oauthNotice.message}
          </Notice>
        )}
        {loadError && <RetryNotice onRetry={load}>{loadError}</RetryNotice>}
        {!list && !loadError && (
          <div className="flex justify-center py-12">
            <Spinner size="md" label="Loading servers" />
          </div>
        )}

        {list && (
          <section aria-labelledby="your-servers" className="space-y-4">
            <h2 id="your-servers" className="text-lg font-semibold">
              Your servers
            </h2>
            {own.length === 0 ? (
              <div className="rounded-card border border-dashed border-border-strong py-10">
                <EmptyState icon={Server} headingLevel="h3" title="No servers of your own yet" description={EMPTY_DESCRIPTION}>
                  <div className="flex justify-center">{actions}</div>
                </EmptyState>
              </div>
            ) : (
              own.map((s) => (
                <ServerCard
                  key={s.id}
                  server={s}
                  onChange={replace}
                  onRemoved={removed}
                  reviewRef={s.id === focusId ? focusReview : undefined}
                />
              ))
            )}
          </section>
        )}

        {list && (shared.length > 0 || list.shared.length > 0) && (
          <section aria-labelledby="org-servers" className="space-y-4" data-testid="org-servers">
            <div>
              <h2 id="org-servers" className="text-lg font-semibold">
                From your organization
              </h2>
              <p className="mt-1 text-sm text-muted">
                Added by your organization&rsquo;s admins, who reviewed their tools. Required ones are always on; turn optional ones on when
                you need them. Where a server signs in with your own account, press Connect once: your sign-in is yours alone.
              </p>
            </div>
            {shared.map((s) => (
              <ServerCard key={s.id} server={s} onChange={replace} onRemoved={turnedOff} />
            ))}
            {list.shared.map((offer) => (
              <SharedOfferCard key={offer.id} offer={offer} onTurnedOn={turnedOn} />
            ))}
          </section>
        )}

        {list && list.builtin.length > 0 && (
          <section aria-labelledby="builtin-servers" className="space-y-4">
            <div>
              <h2 id="builtin-servers" className="text-lg font-semibold">
                Built in
              </h2>
              <p className="mt-1 text-sm text-muted">Part of Switchboard, always available; they cannot be changed here.</p>
            </div>
            {list.builtin.map((s) => (
              <ServerCard key={s.id} server={s} onChange={() => {}} />
            ))}
          </section>
        )}
      </div>

      <ServerFormDialog
        key={addKey}
        open={adding}
        onClose={() => setAdding(false)}
        onSaved={(server) => {
          setAdding(false);
          append([server]);
          setFocusId(server.id);
        }}
      />
      <ImportDialog open={importing} onClose={() => setImporting(false)} onAdded={append} />
    </div>
  );
}

/** An optional shared server the person does not use yet: what it is, whose, and Turn on. */
function SharedOfferCard({ offer, onTurnedOn }: { offer: SharedServerOffer; onTurnedOn: (server: ServerView) => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const headingId = `offer-${offer.id}-name`;
  async function turnOn() {
    setBusy(true);
    setError('');
    try {
      onTurnedOn(
        (await api<{ server: ServerView }>(`/api/orgs/${offer.orgId}/servers/${offer.id}/use`, { method: 'POST', body: {} })).server,
      );
    } catch (err) {
      setError(err instanceof ApiError ? err.message : 'Could not turn it on. Try again.');
    } finally {
      setBusy(false);
    }
  }
  return (
    <Card as="section" aria-labelledby={headingId} data-testid="shared-offer">
      <CardHeader
        icon={Server}
        title={
          <h3 id={headingId} className="text-base">
            {offer.name}
          </h3>
        }
        badges={
          <>
            <Badge appearance="outline" icon={Building2}>
              {offer.orgName} · {offer.required ? 'required' : 'optional'}
            </Badge>
            <Badge>off</Badge>
          </>
        }
        className="pt-4"
      />
      <CardBody className="text-sm text-muted">
        <p className="font-mono text-[13px] break-all">{offer.url}</p>
        <p>{offer.reviewed ? 'Its tools were reviewed by your organization.' : 'Its tools wait for your organization’s review.'}</p>
        {error && <Notice tone="error">{error}</Notice>}
      </CardBody>
      <CardFooter>
        <Button variant="primary" size="sm" icon={Power} loading={busy} onClick={() => void turnOn()}>
          Turn on
        </Button>
      </CardFooter>
    </Card>
  );
}
