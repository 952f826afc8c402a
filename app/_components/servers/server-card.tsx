'use client';

import { Building2, LogIn, LogOut, Pencil, PlugZap, PowerOff, RefreshCw, Server, ShieldAlert, ShieldCheck, Trash2 } from 'lucide-react';
import { useState } from 'react';

import { api, ApiError } from '@/app/_components/api';
import { Badge, Button, Card, CardBody, CardFooter, CardHeader, ConfirmDialog, Disclosure, Notice } from '@/app/_components/ui';
import { useBusyAction } from '@/app/_components/use-busy-action';

import { ReviewPanel } from './review-panel';
import { ServerFormDialog } from './server-form-dialog';
import { needsReview, oauthActions, STATUS, TRANSPORT, type ServerView } from './server-view';
import { SkippedTools, ToolList } from './tool-list';

const REMOVE_DESCRIPTION =
  'Its tools leave every conversation, and its stored headers and sign-in are deleted. ' +
  'The activity log keeps the record of past calls.';

type Busy = 'test' | 'refresh' | 'connect' | 'disconnect' | 'remove' | 'turn-off';

/** Trust and status as badges: words first, colour only as a second hint. */
export function ServerBadges({ server }: { server: ServerView }) {
  const status = STATUS[server.status];
  return (
    <>
      {server.org && (
        <Badge
          appearance="outline"
          icon={Building2}
          data-testid="server-org"
          title="Added by your organization; only its owners and admins change it."
        >
          {server.org.orgName} · {server.org.required ? 'required' : 'optional'}
        </Badge>
      )}
      {server.builtin ? (
        <Badge appearance="outline" icon={ShieldCheck}>
          built in
        </Badge>
      ) : server.trust === 'trusted' ? (
        <Badge appearance="outline" tone="success" icon={ShieldCheck} title="Its read-only claims are believed.">
          annotations trusted
        </Badge>
      ) : (
        <Badge appearance="outline" icon={ShieldAlert} title="Switchboard does not rely on what this server says about its tools.">
          untrusted
        </Badge>
      )}
      {!server.builtin &&
        (server.trustContent ? (
          <Badge appearance="outline" tone="success" icon={ShieldCheck} title="What its tools return does not narrow what runs unasked.">
            content trusted
          </Badge>
        ) : (
          <Badge
            appearance="outline"
            icon={ShieldAlert}
            title="What its tools return marks the conversation: tools that reach outside, and notes reads, ask from then on."
          >
            content untrusted
          </Badge>
        ))}
      <Badge tone={status.tone} data-testid="server-status">
        {status.label}
      </Badge>
    </>
  );
}

/** Namespace, URL, protocol, transport, header names (never values), OAuth client, timeout. */
function Details({ server }: { server: ServerView }) {
  const rows: [string, React.ReactNode][] = [
    [
      'Namespace',
      <code key="ns" className="font-mono text-[13px]">
        {server.namespace}
      </code>,
    ],
  ];
  if (!server.builtin)
    rows.push([
      'URL',
      <span key="url" className="font-mono text-[13px] break-all">
        {server.url}
      </span>,
    ]);
  rows.push(['Protocol', server.protocolVersion ?? 'not known yet']);
  rows.push(['Transport', server.transport ? TRANSPORT[server.transport] : 'not known yet']);
  if (!server.builtin && server.org) {
    rows.push([
      'Sign-in',
      server.org.auth === 'oauth' ? 'your own account (Connect once; Switchboard keeps you signed in)' : 'kept by your organization',
    ]);
  } else if (!server.builtin) {
    rows.push([
      'Headers',
      server.headerNames.length > 0 ? (
        <span key="h" className="flex flex-wrap gap-1">
          {server.headerNames.map((h) => (
            <code key={h} className="rounded bg-code-inline px-1.5 font-mono text-[13px]">
              {h}
            </code>
          ))}
          <span className="text-faint">(values hidden)</span>
        </span>
      ) : (
        'none'
      ),
    ]);
    if (server.oauthClient)
      rows.push([
        'OAuth client',
        <span key="oc" className="break-all">
          {server.oauthClient.clientId}
          {server.oauthClient.hasSecret && <span className="text-faint"> (with a secret)</span>}
        </span>,
      ]);
    rows.push(['Timeout', `${Math.round(server.timeoutMs / 1000)} s`]);
  }
  return (
    <dl className="grid grid-cols-[max-content_minmax(0,1fr)] gap-x-4 gap-y-1 text-sm">
      {rows.map(([term, value]) => (
        <div key={term} className="contents">
          <dt className="text-muted">{term}</dt>
          <dd className="min-w-0 text-fg">{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** One server: what it is, how it is doing, what it can do, and what the person can do with it. */
export function ServerCard({
  server,
  onChange,
  onRemoved,
  reviewRef,
}: {
  server: ServerView;
  onChange: (server: ServerView) => void;
  onRemoved?: (id: string) => void;
  /** The review panel's heading, focused after an add (the page passes it for the new server). */
  reviewRef?: React.Ref<HTMLHeadingElement>;
}) {
  const { busy, error, act } = useBusyAction<Busy>();
  const [editing, setEditing] = useState(false);
  const [editKey, setEditKey] = useState(0);
  const [removing, setRemoving] = useState(false);
  const headingId = `server-${server.id}-name`;
  const oauth = oauthActions(server);
  // A shared server's tools are reviewed by the organization's admins, not here.
  const reviewing = needsReview(server) && !server.org;
  const waitingForOrg = server.org !== null && server.tools.some((t) => !t.reviewed);

  const post = (kind: 'test' | 'refresh') =>
    act(kind, async () =>
      onChange((await api<{ server: ServerView }>(`/api/servers/${server.id}/${kind}`, { method: 'POST', body: {} })).server),
    );
  const connect = () =>
    act('connect', async () => {
      const { authorizationUrl } = await api<{ authorizationUrl: string }>(`/api/servers/${server.id}/oauth/start`, {
        method: 'POST',
        // Back to this page once the provider is done (as the sign-in card in a conversation does).
        body: { returnTo: '/servers' },
      });
      if (!/^https?:\/\//i.test(authorizationUrl))
        throw new ApiError(502, 'bad_response', `Switchboard did not say where to sign in to ${server.name}.`);
      window.location.assign(authorizationUrl);
    });
  const disconnect = () =>
    act('disconnect', async () => {
      await api(`/api/servers/${server.id}/oauth`, { method: 'DELETE' });
      onChange((await api<{ server: ServerView }>(`/api/servers/${server.id}/test`, { method: 'POST', body: {} })).server);
    });
  const turnOff = () =>
    act('turn-off', async () => {
      await api(`/api/orgs/${server.org!.orgId}/servers/${server.org!.serverId}/use`, { method: 'DELETE' });
      onRemoved?.(server.id);
    });
  const remove = () =>
    act('remove', async () => {
      await api(`/api/servers/${server.id}`, { method: 'DELETE' });
      setRemoving(false);
      onRemoved?.(server.id);
    });

  return (
    <Card as="section" aria-labelledby={headingId} data-testid="server-card">
      <CardHeader
        icon={Server}
        title={
          <h3 id={headingId} className="text-base">
            {server.name}
          </h3>
        }
        badges={<ServerBadges server={server} />}
        className="pt-4"
      />
      <CardBody>
        <Details server={server} />
        {server.lastError && server.status !== 'connected' && (
          <Notice tone={server.status === 'needs_sign_in' ? 'warning' : 'error'} role="status" data-testid="server-last-error">
            {server.lastError}
          </Notice>
        )}
        {reviewing && !server.builtin && <ReviewPanel server={server} onEnabled={onChange} headingRef={reviewRef} />}
        {!reviewing &&
          server.tools.length > 0 &&
          (server.builtin ? (
            <Disclosure summary={<span className="text-sm font-medium">Tools ({server.tools.length})</span>}>
              <ToolList tools={server.tools} label={`Tools of ${server.name}`} />
            </Disclosure>
          ) : (
            <div className="space-y-1.5">
              <h4 className="text-sm font-medium">Tools ({server.tools.length})</h4>
              <ToolList tools={server.tools} label={`Tools of ${server.name}`} />
            </div>
          ))}
        {!reviewing && server.tools.length === 0 && server.status === 'connected' && (
          <p className="text-sm text-muted">This server lists no tools.</p>
        )}
        {waitingForOrg && (
          <p className="text-sm text-muted" data-testid="org-review-waiting">
            Some of its tools wait for your organization&rsquo;s review before they can be used.
          </p>
        )}
        <SkippedTools skipped={server.skipped} />
        {error && <Notice tone="error">{error}</Notice>}
      </CardBody>
      {!server.builtin && (
        <CardFooter>
          {oauth.connect && (
            <Button variant="primary" size="sm" icon={LogIn} loading={busy === 'connect'} onClick={() => void connect()}>
              Connect
            </Button>
          )}
          <Button size="sm" icon={PlugZap} loading={busy === 'test'} onClick={() => void post('test')}>
            Test connection
          </Button>
          <Button size="sm" icon={RefreshCw} loading={busy === 'refresh'} onClick={() => void post('refresh')}>
            Refresh tools
          </Button>
          {!server.org && (
            <Button size="sm" variant="ghost" icon={Pencil} onClick={() => (setEditKey((k) => k + 1), setEditing(true))}>
              Edit
            </Button>
          )}
          {oauth.disconnect && (
            <Button size="sm" variant="ghost" icon={LogOut} loading={busy === 'disconnect'} onClick={() => void disconnect()}>
              Disconnect
            </Button>
          )}
          {server.org && !server.org.required && (
            <Button
              size="sm"
              variant="ghost"
              icon={PowerOff}
              className="sm:ml-auto"
              loading={busy === 'turn-off'}
              onClick={() => void turnOff()}
            >
              Turn off
            </Button>
          )}
          {!server.org && (
            <Button size="sm" variant="danger-subtle" icon={Trash2} className="sm:ml-auto" onClick={() => setRemoving(true)}>
              Remove
            </Button>
          )}
        </CardFooter>
      )}
      {!server.builtin && !server.org && (
        <ServerFormDialog
          key={editKey}
          open={editing}
          original={server}
          onClose={() => setEditing(false)}
          onSaved={(s) => {
            setEditing(false);
            onChange(s);
          }}
        />
      )}
      {!server.builtin && !server.org && (
        <ConfirmDialog
          open={removing}
          onClose={() => setRemoving(false)}
          title={`Remove “${server.name}”?`}
          description={REMOVE_DESCRIPTION}
          confirmLabel="Remove"
          tone="danger"
          busy={busy === 'remove'}
          onConfirm={() => void remove()}
        >
          {error && removing && <Notice tone="error">{error}</Notice>}
        </ConfirmDialog>
      )}
    </Card>
  );
}
