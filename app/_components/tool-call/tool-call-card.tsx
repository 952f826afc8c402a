'use client';

import { EyeOff, History, LayoutPanelTop, Power } from 'lucide-react';
import dynamic from 'next/dynamic';
import Link from 'next/link';
import { memo } from 'react';

import { FAILED_CALL_STATUSES, FINISHED_CALL_STATUSES, isOneOf } from '@/db/vocabulary';

import { DETAILS_HIDDEN } from '../share/share-view';
import { offersSwitchOn } from '../tools-panel/switch-on';
import type { CardToolCall } from '../types';
import { Button, Card, CodeBlock, cx, Disclosure } from '../ui/index';
import { TaskStatus } from './task-status';
import { ToolCallHeader } from './tool-call-header';
import { ToolResultView } from './tool-result-view';

// The host bridge (and the MCP SDK under it) is loaded only by a page that shows an interactive
// view, and only in the browser: the frame talks to a window, there is nothing to render on the server.
const AppViewFrame = dynamic(() => import('./app-view-frame').then((m) => m.AppViewFrame), { ssr: false });

/** The activity log's entry of one call. */
export const activityHref = (toolCallId: string) => `/activity?toolCall=${encodeURIComponent(toolCallId)}`;

/** Where a reader of a shared page would see the call's interactive view: it exists, and lives in Switchboard. */
function ViewNote({ className, off }: { className: string; off?: boolean }) {
  return (
    <p className={cx('flex items-center gap-1.5 text-xs text-muted', className)} data-testid="app-view-note">
      <LayoutPanelTop className="size-3.5 shrink-0" aria-hidden />
      {off ? 'Interactive view — switched off for this server (servers page)' : 'Interactive view — open in Switchboard'}
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
      {call.task && <TaskStatus task={call.task} callStatus={call.status} />}
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
      {call.hasView && call.result && !readOnly && !call.viewsOff && !call.viewCopy && <AppViewFrame call={call} />}
      {call.hasView && (readOnly || call.viewsOff || call.viewCopy) && (
        <ViewNote className="border-t border-border px-4 py-2.5" off={!readOnly && !call.viewCopy} />
      )}
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
