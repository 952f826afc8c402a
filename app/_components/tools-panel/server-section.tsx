'use client';

import { Server } from 'lucide-react';
import { useState } from 'react';

import { ApiError } from '@/app/_components/api';
import { Badge, Card, CardHeader, Switch } from '@/app/_components/ui';

import { isToolCalled } from './switch-on';
import { ToolRow } from './tool-row';
import type { ToolsFocus } from './tools-panel';
import { expirySentence, serverOn, switchBody, type ConversationToolsView, type GrantExpiry, type ServerEntry } from './tools-view';
import type { ToolsActions } from './use-conversation-tools';

/** One server: a switch for all its tools (those it has now), then each tool. */
export function ServerSection({
  view,
  server,
  now,
  expiresIn,
  actions,
  focusTool = null,
}: {
  view: ConversationToolsView;
  server: ServerEntry;
  now: number;
  expiresIn: GrantExpiry;
  actions: ToolsActions;
  focusTool?: ToolsFocus | null;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const on = serverOn(server);
  const toggle = async (next: boolean) => {
    setBusy(true);
    setError('');
    try {
      await actions.put(switchBody(server.scope, next, expiresIn));
    } catch (err) {
      setError(err instanceof ApiError ? err.message : 'Could not save the change.');
    } finally {
      setBusy(false);
    }
  };
  return (
    <Card as="section" aria-label={server.name} data-testid="panel-server">
      <CardHeader
        icon={Server}
        title={server.name}
        badges={
          <>
            {server.builtin && <Badge appearance="outline">built-in</Badge>}
            {server.trust === 'untrusted' && (
              <Badge appearance="outline" tone="warning" title="Its annotations that ask for less caution are ignored.">
                untrusted
              </Badge>
            )}
            {!server.builtin && !server.trustContent && (
              <Badge
                appearance="outline"
                tone="warning"
                title="What its tools return marks this conversation: tools that reach outside, and notes reads, ask from then on."
              >
                content untrusted
              </Badge>
            )}
          </>
        }
        description={<code className="font-mono text-xs">{server.namespace}</code>}
        className="pb-3"
      />
      {!server.builtin && server.tools.length > 0 && (
        <div className="flex items-start gap-3 border-t border-border px-4 py-2.5">
          <div className="min-w-0 flex-1 text-[13px] leading-5">
            <p className="font-medium text-fg">All tools of this server</p>
            <p className="text-muted" data-testid="server-grant">
              {server.grant
                ? `${expirySentence(server.grant, now)}; covers the tools it has now, not ones added later.`
                : 'Switch on every tool it lists now, at once.'}
            </p>
            {error && (
              <p role="alert" className="text-danger-text">
                {error}
              </p>
            )}
          </div>
          <Switch checked={on} busy={busy} label={`All tools of ${server.name}`} onChange={(next) => void toggle(next)} />
        </div>
      )}
      {server.tools.length === 0 ? (
        <p className="border-t border-border px-4 py-3 text-sm text-muted">No tools listed.</p>
      ) : (
        <ul aria-label={`Tools of ${server.name}`} className="divide-y divide-border border-t border-border">
          {server.tools.map((tool) => (
            <ToolRow
              key={tool.name}
              view={view}
              trust={server.trust}
              tool={tool}
              now={now}
              expiresIn={expiresIn}
              actions={actions}
              focusKey={focusTool && isToolCalled(server, tool, focusTool.modelName) ? focusTool.key : undefined}
            />
          ))}
        </ul>
      )}
    </Card>
  );
}
