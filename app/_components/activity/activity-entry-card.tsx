import { KeyRound, PlugZap, Wrench } from 'lucide-react';
import Link from 'next/link';
import { memo } from 'react';

import type { StoredAuditClientCall, StoredAuditGrant, StoredAuditToolCall } from '@/db/stored-json';

import { Badge, Card, CardBody, CardHeader, CodeBlock, Disclosure } from '../ui';
import {
  clientVerdictSentence,
  durationText,
  entryTitle,
  formatBytes,
  GRANT_CHANGE_LABEL,
  OUTCOME_BADGE,
  VERDICT_LABEL,
  verdictSentence,
  type ActivityEntry,
} from './activity-view';

const when = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

/** One entry of the activity log, read-only: nothing here changes it. */
export const ActivityEntryCard = memo(function ActivityEntryCard({ entry, highlighted }: { entry: ActivityEntry; highlighted?: boolean }) {
  const c = entry.content;
  return (
    <Card
      as="article"
      tone={highlighted ? 'accent' : 'default'}
      aria-label={`Entry ${entry.seq}: ${entryTitle(entry)}`}
      aria-current={highlighted ? 'true' : undefined}
      data-testid="activity-entry"
      data-seq={entry.seq}
    >
      <CardHeader
        icon={c.kind === 'tool_call' ? Wrench : c.kind === 'client_call' ? PlugZap : KeyRound}
        title={<code className="break-all font-mono text-[13px]">{entryTitle(entry)}</code>}
        badges={
          c.kind === 'grant' ? (
            <Badge tone="info">{GRANT_CHANGE_LABEL[c.change]}</Badge>
          ) : c.kind === 'tool_call' ? (
            <ToolCallBadges c={c} />
          ) : (
            <CallBadges outcome={c.outcome} verdict={c.verdict.kind} />
          )
        }
        description={
          <span className="flex flex-wrap gap-x-2">
            <time dateTime={entry.at}>{when(entry.at)}</time>
            {c.kind === 'client_call' && <span>by the MCP client “{c.client.name}”</span>}
            {c.conversation && (
              <span>
                in{' '}
                <Link href={`/c/${c.conversation.id}`} className="underline decoration-border-strong underline-offset-2 hover:text-fg">
                  {c.conversation.title}
                </Link>
              </span>
            )}
            {c.kind !== 'grant' && durationText(c) && <span className="tabular-nums">· {durationText(c)}</span>}
          </span>
        }
        actions={<span className="text-xs tabular-nums text-faint">#{entry.seq}</span>}
      />
      <CardBody>
        {c.kind === 'tool_call' ? (
          <ToolCallDetails c={c} entry={entry} />
        ) : c.kind === 'client_call' ? (
          <ClientCallDetails c={c} entry={entry} />
        ) : (
          <GrantDetails c={c} />
        )}
      </CardBody>
    </Card>
  );
});

function CallBadges({ outcome, verdict }: Pick<StoredAuditToolCall, 'outcome'> & { verdict: StoredAuditToolCall['verdict']['kind'] }) {
  const badge = OUTCOME_BADGE[outcome];
  return (
    <>
      <Badge tone={badge.tone}>{badge.label}</Badge>
      <Badge appearance="outline">{VERDICT_LABEL[verdict]}</Badge>
    </>
  );
}

/** A call an MCP client made through /mcp: which client, the verdict, the arguments, what went back. */
function ClientCallDetails({ c, entry }: { c: StoredAuditClientCall; entry: ActivityEntry }) {
  return (
    <>
      <p className="text-sm text-fg">{clientVerdictSentence(c)}</p>
      {c.verdict.warnings.length > 0 && <p className="text-xs text-warning-text">{c.verdict.warnings.join(' ')}</p>}
      <Disclosure summary={<span className="text-sm font-medium">Arguments</span>} contentClassName="mt-2 space-y-2">
        <CodeBlock label="Arguments" wrap maxHeight="sm">
          {JSON.stringify(c.arguments.value, null, 2)}
        </CodeBlock>
      </Disclosure>
      <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-xs text-muted">
        <dt>Client</dt>
        <dd className="break-all">personal access token “{c.client.name}”</dd>
        <dt>Name it used</dt>
        <dd className="break-all font-mono">{c.name}</dd>
        {c.result && (
          <>
            <dt>Result</dt>
            <dd className="break-all">
              {formatBytes(c.result.bytes)}
              {c.result.isError ? ', an error' : ''} · SHA-256 <span className="font-mono">{c.result.sha256}</span>
            </dd>
          </>
        )}
        <SignatureRow hmac={entry.hmac} />
      </dl>
    </>
  );
}

/** The entry's link in the signed chain, shortened (the full value is in the export). */
function SignatureRow({ hmac }: { hmac: string }) {
  return (
    <>
      <dt>Signature</dt>
      <dd className="break-all font-mono" title="HMAC-SHA256 over the previous entry's and this entry's content">
        {hmac.slice(0, 16)}…
      </dd>
    </>
  );
}

function ToolCallBadges({ c }: { c: StoredAuditToolCall }) {
  return (
    <>
      <CallBadges outcome={c.outcome} verdict={c.verdict.kind} />
      {c.arguments.edited && (
        <Badge appearance="outline" tone="accent">
          arguments edited
        </Badge>
      )}
    </>
  );
}

function ToolCallDetails({ c, entry }: { c: StoredAuditToolCall; entry: ActivityEntry }) {
  return (
    <>
      <p className="text-sm text-fg">{verdictSentence(c)}</p>
      {c.verdict.warnings.length > 0 && <p className="text-xs text-warning-text">{c.verdict.warnings.join(' ')}</p>}
      <Disclosure
        summary={<span className="text-sm font-medium">Arguments{c.arguments.edited ? ' (proposed and run)' : ''}</span>}
        contentClassName="mt-2 space-y-2"
      >
        {c.arguments.edited && (
          <CodeBlock label="Proposed by the model" wrap maxHeight="sm">
            {JSON.stringify(c.arguments.proposed, null, 2)}
          </CodeBlock>
        )}
        <CodeBlock label={c.arguments.edited ? 'Run (edited by you)' : 'Arguments'} wrap maxHeight="sm">
          {JSON.stringify(c.arguments.executed, null, 2)}
        </CodeBlock>
      </Disclosure>
      <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-xs text-muted">
        <dt>Model’s name</dt>
        <dd className="break-all font-mono">{c.modelName}</dd>
        {c.grant.id && (
          <>
            <dt>Grant</dt>
            <dd className="break-all font-mono">{c.grant.id}</dd>
          </>
        )}
        {c.result && (
          <>
            <dt>Result</dt>
            <dd className="break-all">
              {formatBytes(c.result.bytes)}
              {c.result.isError ? ', an error' : ''}
              {c.result.truncated && c.result.totalChars !== null ? `, cut from ${c.result.totalChars} characters` : ''} · SHA-256{' '}
              <span className="font-mono">{c.result.sha256}</span>
            </dd>
          </>
        )}
        <dt>Attempts</dt>
        <dd>{c.attempts}</dd>
        <dt>Tool call</dt>
        <dd className="break-all font-mono">{c.toolCallId}</dd>
        <SignatureRow hmac={entry.hmac} />
      </dl>
    </>
  );
}

function GrantDetails({ c }: { c: StoredAuditGrant }) {
  const s = c.settings;
  return (
    <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-xs text-muted">
      <dt>Scope</dt>
      <dd className="break-all font-mono">{c.scope}</dd>
      {s?.autoApprove !== undefined && (
        <>
          <dt>Without asking</dt>
          <dd>{s.autoApprove ? 'yes' : 'no'}</dd>
        </>
      )}
      {s?.constraint && (
        <>
          <dt>Limited to</dt>
          <dd className="break-all font-mono">{JSON.stringify(s.constraint)}</dd>
        </>
      )}
      {s?.expiresAt && (
        <>
          <dt>Expires</dt>
          <dd>{when(s.expiresAt)}</dd>
        </>
      )}
    </dl>
  );
}
