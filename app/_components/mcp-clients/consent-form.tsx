'use client';

import { useState } from 'react';

import { api, ApiError } from '@/app/_components/api';
import { Badge, Button, HintedSwitch, Notice } from '@/app/_components/ui';
import type { PickableTool } from '@/lib/gateway/catalog';
import type { AuthorizeParams } from '@/lib/oauth-server/authorize';

import { ToolPicker } from './tool-picker';

/**
 * What the person decides on the consent screen: which of their tools this client may see and
 * call (none ticked), whether it also reads those servers' resources and prompts (off), then Allow
 * or Deny. Both post the original request back, checked again on
 * the server, and the browser goes where the answer says (the client's redirect URI).
 */
export function ConsentForm({
  client,
  account,
  endpoint,
  params,
  tools,
}: {
  client: { name: string; host: string; verified: boolean; redirectHost: string };
  account: string;
  endpoint: string;
  params: AuthorizeParams;
  tools: PickableTool[];
}) {
  const [picked, setPicked] = useState<string[]>([]);
  const [content, setContent] = useState(false);
  const [busy, setBusy] = useState<'allow' | 'deny' | null>(null);
  const [error, setError] = useState('');

  async function decide(decision: 'allow' | 'deny') {
    setBusy(decision);
    setError('');
    try {
      const { redirectTo } = await api<{ redirectTo: string }>('/api/oauth/authorize', {
        method: 'POST',
        body: { decision, tools: decision === 'allow' ? picked : [], content: decision === 'allow' && content, params },
      });
      window.location.assign(redirectTo);
    } catch (err) {
      setError(err instanceof ApiError ? err.message : 'Could not send your answer. Try again.');
      setBusy(null);
    }
  }

  return (
    <div className="space-y-5" data-testid="consent">
      <div className="space-y-2 text-[15px]">
        <p>
          <span className="font-semibold break-words">{client.name}</span>{' '}
          <span className="text-muted">
            from <span className="font-mono text-[13px] text-fg">{client.host}</span>
          </span>{' '}
          {client.verified ? <Badge tone="success">identity from its host</Badge> : <Badge tone="warning">self-described</Badge>}
        </p>
        <p className="text-sm text-muted">
          wants to use your Switchboard tools at <span className="font-mono text-[13px] whitespace-nowrap">{endpoint}</span> as{' '}
          <span className="font-medium text-fg break-words">{account}</span>. After you answer, you go back to{' '}
          <span className="font-mono text-[13px] text-fg">{client.redirectHost}</span>.
        </p>
        {!client.verified && (
          <p className="text-sm text-muted">
            This client registered itself: its name is its own claim. Allow it only if you just started connecting it.
          </p>
        )}
      </div>
      <div className="space-y-2">
        <h2 id="consent-tools-heading" className="text-sm font-semibold">
          Tools it may see and call
        </h2>
        <p className="text-sm text-muted">
          None unless you tick them. Calls go through your consent rules and are in your activity log under its name. You can change this or
          disconnect it on the Account page.
        </p>
        <ToolPicker tools={tools} value={picked} onChange={setPicked} idPrefix="consent" labelledBy="consent-tools-heading" />
      </div>
      <HintedSwitch
        checked={content}
        onChange={setContent}
        label="Also share these servers' resources and prompts"
        hint={
          <>
            Off unless you turn it on. On, it can list and read everything the servers of the tools you ticked offer as resources and
            prompts — for Notes, every one of your notes — without asking you and without an entry in your activity log.
          </>
        }
      />
      {error && <Notice tone="error">{error}</Notice>}
      <div className="flex flex-wrap justify-end gap-2">
        <Button variant="ghost" onClick={() => void decide('deny')} loading={busy === 'deny'} disabled={busy !== null}>
          Deny
        </Button>
        <Button variant="primary" onClick={() => void decide('allow')} loading={busy === 'allow'} disabled={busy !== null}>
          Allow
        </Button>
      </div>
    </div>
  );
}
