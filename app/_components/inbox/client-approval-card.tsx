'use client';

import { ShieldAlert, TriangleAlert } from 'lucide-react';
import { useState } from 'react';

import type { ClientDecisionKind } from '@/db/vocabulary';
import type { ClientApprovalView } from '@/lib/gateway/approvals';

import { ApiError } from '../api';
import { Badge, Button, Card, CardBody, CardFooter, CardHeader, CodeBlock, Notice } from '../ui/index';

/**
 * One call of an MCP client waiting for the person, as the chat's approval card shows a model's:
 * who asks (the client, by the name given to its token), on which server, which tool, why it asks,
 * the exact arguments; Allow once or Deny. Nothing is focused for them: Enter approves nothing.
 */
export function ClientApprovalCard({
  call,
  onDecide,
}: {
  call: ClientApprovalView;
  onDecide: (call: ClientApprovalView, decision: ClientDecisionKind) => Promise<void>;
}) {
  const [busy, setBusy] = useState<ClientDecisionKind | null>(null);
  const [error, setError] = useState('');
  const decide = async (d: ClientDecisionKind) => {
    setBusy(d);
    setError('');
    try {
      await onDecide(call, d);
    } catch (err) {
      setError(err instanceof ApiError ? err.message : 'Could not send your decision. Try again.');
    } finally {
      setBusy(null);
    }
  };
  return (
    <Card
      as="section"
      tone={call.destructive ? 'danger' : 'warning'}
      aria-label={`Approve ${call.tool} on ${call.server.name} for ${call.client.name}?`}
      data-testid="client-approval-card"
    >
      <CardHeader
        icon={call.destructive ? TriangleAlert : ShieldAlert}
        title={
          <span className="flex flex-wrap items-center gap-2">
            <span className="font-mono text-sm">{call.name}</span>
            <Badge tone="warning">Needs your approval</Badge>
            {call.trust !== 'trusted' && (
              <Badge appearance="outline" tone="danger">
                untrusted server
              </Badge>
            )}
          </span>
        }
      />
      <CardBody>
        <p className="text-[15px] text-fg">
          <strong data-testid="client-name">{call.client.name}</strong> wants to run <strong>{call.tool}</strong> on{' '}
          <strong>{call.server.name}</strong>.
        </p>
        <p className="text-sm text-muted">{call.reason}</p>
        {call.warnings.map((w) => (
          <Notice key={w} tone="warning">
            {w}
          </Notice>
        ))}
        <CodeBlock label="Exact arguments" wrap maxHeight="md" data-testid="client-approval-arguments">
          {JSON.stringify(call.input, null, 2)}
        </CodeBlock>
        <p className="font-mono text-[11px] text-faint" title="SHA-256 of the arguments; your decision is bound to it">
          args {call.argsHash.slice(0, 16)}… · waits until {new Date(call.expiresAt).toLocaleTimeString()}
        </p>
        {error && <Notice tone="error">{error}</Notice>}
      </CardBody>
      <CardFooter>
        <Button
          variant={call.destructive ? 'danger' : 'primary'}
          size="sm"
          loading={busy === 'allow_once'}
          disabled={busy !== null}
          onClick={() => void decide('allow_once')}
        >
          Allow once
        </Button>
        <Button variant="danger-subtle" size="sm" loading={busy === 'deny'} disabled={busy !== null} onClick={() => void decide('deny')}>
          Deny
        </Button>
      </CardFooter>
    </Card>
  );
}
