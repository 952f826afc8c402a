import { FAILED_CALL_STATUSES, isOneOf, type ToolCallStatus, type WaitReason } from '@/db/vocabulary';
import type { ToolCallView } from '@/lib/agent/tool-call-view';

/**
 * The timeline of a turn's tool calls, laid out for the page: one row per call, grouped by the
 * model step that asked for it (calls of one step run side by side), each with the time it waited
 * for the person and the time it ran, as fractions of the turn's span so rows share one axis.
 * Pure: the page passes `now` for calls still running.
 */
export interface TimelineBar {
  id: string;
  label: string;
  status: ToolCallStatus;
  failed: boolean;
  /** Where the call was asked for, began running and ended, as fractions of the span (0..1). */
  proposed: number;
  started: number | null;
  ended: number | null;
  /** Time between the model asking and the call running, when the person had to answer first. */
  waitedMs: number | null;
  waitedFor: WaitReason | null;
  /** Running time so far (or in all, once ended). */
  ranMs: number | null;
}

export interface TimelineStep {
  step: number;
  bars: TimelineBar[];
  /** More than one call of the step was running at the same moment. */
  parallel: boolean;
}

export interface TurnTimeline {
  steps: TimelineStep[];
  calls: number;
  spanMs: number;
}

/** A turn is worth a timeline once it made more than one call; a single card already says it all. */
export const TIMELINE_MIN_CALLS = 2;

/** What the timeline reads of a call: its times, step, names and outcome (a shared page's calls carry them too). */
export type TimedCall = Pick<
  ToolCallView,
  'id' | 'status' | 'server' | 'tool' | 'modelName' | 'step' | 'proposedAt' | 'startedAt' | 'endedAt' | 'waitedFor'
> & { result: { isError?: boolean } | null };

export function turnTimeline(calls: TimedCall[], now: number): TurnTimeline | null {
  const timed = calls.filter((c) => c.proposedAt !== null);
  if (timed.length < TIMELINE_MIN_CALLS) return null;
  const at = (iso: string | null) => (iso === null ? null : Date.parse(iso));
  const start = Math.min(...timed.map((c) => at(c.proposedAt)!));
  const end = Math.max(...timed.map((c) => at(c.endedAt) ?? (c.startedAt ? now : at(c.proposedAt)!)));
  const spanMs = Math.max(1, end - start);
  const frac = (ms: number) => Math.min(1, Math.max(0, (ms - start) / spanMs));

  const bars = timed.map((c) => {
    const proposed = at(c.proposedAt)!;
    const started = at(c.startedAt);
    const ended = at(c.endedAt) ?? (started !== null && !isSettled(c.status) ? now : null);
    return {
      step: c.step ?? 0,
      bar: {
        id: c.id,
        label: c.server && c.tool ? `${c.server} · ${c.tool}` : c.modelName,
        status: c.status,
        failed: c.result?.isError === true || isOneOf(FAILED_CALL_STATUSES, c.status),
        proposed: frac(proposed),
        started: started === null ? null : frac(started),
        ended: ended === null ? null : frac(ended),
        waitedMs: c.waitedFor && started !== null ? Math.max(0, started - proposed) : null,
        waitedFor: c.waitedFor,
        ranMs: started !== null && ended !== null ? Math.max(0, ended - started) : null,
      } satisfies TimelineBar,
      running: started !== null ? ([started, ended ?? now] as const) : null,
    };
  });

  const steps = [...new Set(bars.map((b) => b.step))].sort((a, b) => a - b);
  return {
    calls: bars.length,
    spanMs,
    steps: steps.map((step) => {
      const inStep = bars.filter((b) => b.step === step);
      return { step, bars: inStep.map((b) => b.bar), parallel: overlaps(inStep.flatMap((b) => (b.running ? [b.running] : []))) };
    }),
  };
}

/** Whether any two intervals share a moment. */
function overlaps(intervals: (readonly [number, number])[]): boolean {
  const sorted = [...intervals].sort((a, b) => a[0] - b[0]);
  let reach = -Infinity;
  for (const [from, to] of sorted) {
    if (from < reach) return true;
    reach = Math.max(reach, to);
  }
  return false;
}

function isSettled(status: ToolCallStatus): boolean {
  return status !== 'executing' && status !== 'awaiting_input';
}

/** "850 ms", "4.2 s", "2 min 5 s": short enough for a badge. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} min ${s % 60} s`;
}
