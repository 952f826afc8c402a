'use client';

import { EyeOff, Globe, History, LayoutPanelTop, PencilLine, Power, ShieldQuestion, TriangleAlert } from 'lucide-react';
import dynamic from 'next/dynamic';
import Link from 'next/link';
import { memo } from 'react';

import { FAILED_CALL_STATUSES, FINISHED_CALL_STATUSES, isOneOf, WAITING_CALL_STATUSES, type ToolCallStatus } from '@/db/vocabulary';
import { formatDuration } from '@/lib/chat/timeline';

import { DETAILS_HIDDEN } from '../share/share-view';
import { offersSwitchOn } from '../tools-panel/switch-on';
import type { CardToolCall } from '../types';
import { Badge, Button, Card, CodeBlock, cx, Disclosure, type BadgeTone } from '../ui/index';
import { useNow } from '../use-now';
import { ToolResultView } from './tool-result-view';

// The host bridge (and the MCP SDK under it) is loaded only by a page that shows an interactive
// view, and only in the browser: the frame talks to a window, there is nothing to render on the server.
const AppViewFrame = dynamic(() => import('./app-view-frame').then((m) => m.AppViewFrame), { ssr: false });

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

/** The activity log's entry of one call. */
export const activityHref = (toolCallId: string) => `/activity?toolCall=${encodeURIComponent(toolCallId)}`;

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

/** Where a reader of a shared page would see the call's interactive view: it exists, and lives in Switchboard. */
function ViewNote({ className }: { className: string }) {
  return (
    <p className={cx('flex items-center gap-1.5 text-xs text-muted', className)} data-testid="app-view-note">
      <LayoutPanelTop className="size-3.5 shrink-0" aria-hidden />
      Interactive view — open in Switchboard
    </p>
  );
}

/**
 * A tool call inline in the answer, where the model made it: folded, with its arguments and
 * result one click away. Memoized: the call's view is a new object only when the call changed.
 * `readOnly` (a shared page): no link into the owner's activity log, and when the owner shared
 * the conversation without tool details, a line saying so in place of the arguments and result.
 */
export const ToolCallCard = memo(function ToolCallCard({
  call,
  progress,
  readOnly = false,
  onSwitchOn,
}: {
  call: CardToolCall;
  progress?: { progress: number; total?: number; message?: string };
  readOnly?: boolean;
  /** Opens the Tools panel at this call's tool; given on the person's own page only. */
  onSwitchOn?: (modelName: string) => void;
}) {
  const failed = call.result?.isError === true || isOneOf(FAILED_CALL_STATUSES, call.status);
  const why = call.status === 'rejected' || call.status === 'denied' ? (call.decision?.reason ?? call.verdict?.reason) : null;
  const summary = (
    <>
      <ToolCallHeader call={call} readOnly={readOnly} />
      {call.status === 'executing' && progress && (
        <p className="mt-1 text-xs text-info-text" role="status">
          {progress.total ? `${Math.round((100 * progress.progress) / progress.total)}%` : `step ${progress.progress}`}
          {progress.message ? ` — ${progress.message}` : ''}
        </p>
      )}
      {why && <p className="mt-1 text-xs text-danger-text">{why}</p>}
    </>
  );
  // Nothing to unfold: the card says at once that the owner kept the details back.
  if (call.detailsHidden) {
    return (
      <Card tone={failed ? 'danger' : 'default'} className="px-4 py-3" data-testid="tool-call" data-status={call.status}>
        {summary}
        <p className="mt-1.5 flex items-center gap-1.5 text-xs text-muted" data-testid="tool-details-hidden">
          <EyeOff className="size-3.5 shrink-0" aria-hidden />
          {DETAILS_HIDDEN}
        </p>
        {call.hasView && <ViewNote className="mt-1.5" />}
      </Card>
    );
  }
  return (
    <Card tone={failed ? 'danger' : 'default'} data-testid="tool-call" data-status={call.status}>
      <Disclosure className="px-4 py-3" summary={summary} contentClassName="space-y-3 border-t border-border pt-3">
        <CodeBlock label="Arguments" wrap maxHeight="sm">
          {JSON.stringify(call.input, null, 2)}
        </CodeBlock>
        {call.result && (
          <ToolResultView
            result={call.result}
            attachFrom={readOnly ? undefined : { toolCallId: call.id, serverName: call.server ?? 'its server' }}
          />
        )}
        {call.verdict && <p className="text-xs text-faint">Policy: {call.verdict.reason}</p>}
        {/* A finished call has its entry in the activity log (written when it finished); a reader has no such log. */}
        {!readOnly && isOneOf(FINISHED_CALL_STATUSES, call.status) && (
          <Link
            href={activityHref(call.id)}
            className={cx(
              'inline-flex items-center gap-1 text-xs text-muted hover:text-fg',
              'underline decoration-border-strong underline-offset-2',
            )}
          >
            <History className="size-3" aria-hidden />
            See it in the activity log
          </Link>
        )}
      </Disclosure>
      {/* The interactive view lives only on the person's own page: a shared page says it exists and never loads it. */}
      {call.hasView && call.result && !readOnly && <AppViewFrame call={call} />}
      {call.hasView && readOnly && <ViewNote className="border-t border-border px-4 py-2.5" />}
      {onSwitchOn && offersSwitchOn(call) && (
        // Outside the summary, which is itself a control; the panel asks as it always does.
        <div className="flex flex-wrap items-center gap-x-3 gap-y-1.5 border-t border-border px-4 py-2.5" data-testid="switch-on-offer">
          <p className="min-w-0 flex-1 text-xs text-muted">Only you can switch it on, in the Tools panel; then ask again.</p>
          <Button size="sm" icon={Power} onClick={() => onSwitchOn(call.modelName)} aria-haspopup="dialog">
            Switch on
          </Button>
        </div>
      )}
    </Card>
  );
});
