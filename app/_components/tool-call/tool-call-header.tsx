'use client';

import { Globe, PencilLine, ShieldQuestion, TriangleAlert } from 'lucide-react';

import { WAITING_CALL_STATUSES, type ToolCallStatus } from '@/db/vocabulary';
import { formatDuration } from '@/lib/chat/timeline';

import type { CardToolCall } from '../types';
import { Badge, type BadgeTone } from '../ui/index';
import { useNow } from '../use-now';

/** A tool call's header line, shared by its card and the cards that ask the person (approve, answer, sign in). */

// Keyed by the status union: a new status does not compile until it has its words and tone here.
export const STATUS_BADGE: Record<ToolCallStatus, { label: string; tone: BadgeTone }> = {
  proposed: { label: 'Proposed', tone: 'neutral' },
  pending_approval: { label: 'Needs your approval', tone: 'warning' },
  approved: { label: 'Approved', tone: 'accent' },
  auto_approved: { label: 'Allowed automatically', tone: 'accent' },
  denied: { label: 'Denied', tone: 'danger' },
  rejected: { label: 'Not run', tone: 'danger' },
  executing: { label: 'Running', tone: 'info' },
  awaiting_input: { label: 'Waiting for your input', tone: 'warning' },
  awaiting_sign_in: { label: 'Waiting for you to sign in', tone: 'warning' },
  succeeded: { label: 'Done', tone: 'success' },
  errored: { label: 'Failed', tone: 'danger' },
  timed_out: { label: 'Timed out', tone: 'danger' },
  unknown: { label: 'Outcome unknown', tone: 'danger' },
  cancelled: { label: 'Cancelled', tone: 'neutral' },
};

/**
 * What the server says about the tool, as outline badges (properties, not states). On a shared
 * page (`readOnly`) the reader is not the one who chose the trust or edited the call.
 */
export function AnnotationBadges({ call, readOnly = false }: { call: CardToolCall; readOnly?: boolean }) {
  const h = call.hints;
  const trusted = call.trust === 'trusted';
  return (
    <>
      {!h.annotated && call.server && (
        <Badge
          appearance="outline"
          icon={ShieldQuestion}
          title="The server says nothing about what this tool does (read-only, destructive…), so Switchboard asks before it runs."
        >
          not annotated
        </Badge>
      )}
      {h.readOnly && !h.destructive && (
        <Badge
          appearance="outline"
          title={
            trusted
              ? 'The server says this tool only reads.'
              : 'An untrusted server says this tool only reads; Switchboard does not rely on it.'
          }
        >
          {trusted ? 'read-only' : 'claims read-only'}
        </Badge>
      )}
      {h.destructive && (
        <Badge appearance="outline" tone="danger" icon={TriangleAlert} title="The server says this tool can delete or overwrite.">
          destructive
        </Badge>
      )}
      {h.openWorld && (
        <Badge appearance="outline" tone="warning" icon={Globe} title="The tool talks to systems beyond this server.">
          reaches outside systems
        </Badge>
      )}
      {call.trust === 'untrusted' && (
        <Badge
          appearance="outline"
          tone="warning"
          title={readOnly ? 'The owner marked this server as untrusted.' : 'You marked this server as untrusted.'}
        >
          untrusted server
        </Badge>
      )}
    </>
  );
}

function Duration({ call }: { call: CardToolCall }) {
  const now = useNow(call.status === 'executing');
  if (!call.startedAt) return null;
  const end = call.endedAt ? Date.parse(call.endedAt) : now;
  return <span className="text-xs tabular-nums text-faint">{formatDuration(Math.max(0, end - Date.parse(call.startedAt)))}</span>;
}

/** Which tool, what state, what the server says about it, how long it took. */
export function ToolCallHeader({ call, readOnly = false }: { call: CardToolCall; readOnly?: boolean }) {
  const status = STATUS_BADGE[call.status];
  return (
    <span className="flex flex-wrap items-center gap-2">
      <code className="break-all font-mono text-[13px] font-semibold text-fg">
        {call.server ? `${call.server} · ${call.tool}` : call.modelName}
      </code>
      <Badge tone={status.tone} data-testid="tool-call-status">
        {status.label}
      </Badge>
      <AnnotationBadges call={call} readOnly={readOnly} />
      {call.decision?.edited && (
        <Badge
          appearance="outline"
          tone="accent"
          icon={PencilLine}
          title={readOnly ? 'The owner changed the arguments before approving' : 'You changed the arguments before approving'}
        >
          edited
        </Badge>
      )}
      {/* A call waiting for the person has no running time to show. */}
      {!(call.status in WAITING_CALL_STATUSES) && <Duration call={call} />}
    </span>
  );
}
