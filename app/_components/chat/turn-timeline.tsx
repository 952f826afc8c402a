'use client';

import { ListTree } from 'lucide-react';
import { memo } from 'react';

import type { WaitReason } from '@/db/vocabulary';
import { formatDuration, turnTimeline, type TimelineBar } from '@/lib/chat/timeline';

import type { CardToolCall } from '../types';
import { cx, Disclosure } from '../ui/index';
import { useNow } from '../use-now';

// Keyed by the reason union: a new reason does not compile until it has its words here.
const WAITED_FOR: Record<WaitReason, string> = { approval: 'your approval', input: 'your answer', sign_in: 'you to sign in' };
// On a shared page the reader is not the person who was waited for.
const OWNER_WAITED_FOR: Record<WaitReason, string> = { approval: 'approval', input: 'an answer', sign_in: 'a sign-in' };

/**
 * A turn's tool calls on one time axis, folded under a one-line summary: which step asked for
 * each call, which ran side by side, which waited for the person, and how long each took.
 */
export const TurnTimeline = memo(function TurnTimeline({ calls, readOnly = false }: { calls: CardToolCall[]; readOnly?: boolean }) {
  const live = calls.some((c) => c.status === 'executing' || c.status === 'awaiting_input');
  const now = useNow(live, 500);
  const timeline = turnTimeline(calls, now);
  if (!timeline) return null;
  const steps = timeline.steps.length;
  return (
    <Disclosure
      className="rounded-card border border-border bg-surface px-4 py-2.5"
      data-testid="turn-timeline"
      summary={
        <span className="flex flex-wrap items-center gap-x-2 text-[13px] text-muted">
          <ListTree className="size-4 text-faint" aria-hidden />
          <span className="font-medium text-fg">Timeline</span>
          <span>
            {timeline.calls} tool calls in {steps} {steps === 1 ? 'step' : 'steps'} · {formatDuration(timeline.spanMs)}
          </span>
        </span>
      }
      contentClassName="space-y-3 pb-1"
    >
      {timeline.steps.map((s) => (
        <section key={s.step} aria-label={`Step ${s.step}`}>
          <h3 className="mb-1 text-xs font-medium text-faint">
            Step {s.step}
            {s.parallel
              ? ` · ${s.bars.length} calls ran in parallel`
              : s.bars.length > 1
                ? ` · ${s.bars.length} calls, one after another`
                : ''}
          </h3>
          <ol className="space-y-1.5">
            {s.bars.map((bar) => (
              <TimelineRow key={bar.id} bar={bar} readOnly={readOnly} />
            ))}
          </ol>
        </section>
      ))}
      <p className="flex flex-wrap gap-x-4 gap-y-1 text-xs text-faint" aria-hidden>
        <Legend className="bg-warning-soft ring-1 ring-inset ring-warning-border">{readOnly ? 'waiting' : 'waiting for you'}</Legend>
        <Legend className="bg-accent">running</Legend>
        <Legend className="bg-danger">failed</Legend>
      </p>
    </Disclosure>
  );
});

function TimelineRow({ bar, readOnly }: { bar: TimelineBar; readOnly: boolean }) {
  const end = bar.ended ?? bar.started ?? bar.proposed;
  return (
    <li className="grid grid-cols-1 gap-1 sm:grid-cols-[minmax(0,14rem)_1fr] sm:items-center sm:gap-3" data-testid="timeline-row">
      <span className="min-w-0 text-xs">
        <code className="block truncate font-mono text-fg" title={bar.label}>
          {bar.label}
        </code>
        <span className="text-faint">{describe(bar, readOnly ? OWNER_WAITED_FOR : WAITED_FOR)}</span>
      </span>
      {/* The bar repeats the words beside it, for the eye only. */}
      <span className="relative h-3 rounded-full bg-surface-sunken" aria-hidden>
        {bar.waitedMs !== null && bar.started !== null && (
          <Segment from={bar.proposed} to={bar.started} className="bg-warning-soft ring-1 ring-inset ring-warning-border" />
        )}
        {bar.started !== null && <Segment from={bar.started} to={end} className={bar.failed ? 'bg-danger' : 'bg-accent'} />}
      </span>
    </li>
  );
}

/** A stretch of the axis; never thinner than a few pixels, so a 2 ms call still shows. */
function Segment({ from, to, className }: { from: number; to: number; className: string }) {
  return (
    <span
      className={cx('absolute inset-y-0 min-w-1.5 rounded-full', className)}
      style={{ left: `${from * 100}%`, width: `${Math.max(0, to - from) * 100}%` }}
    />
  );
}

function Legend({ className, children }: { className: string; children: React.ReactNode }) {
  return (
    <span className="inline-flex items-center gap-1.5">
      <span className={cx('inline-block h-2 w-4 rounded-full', className)} />
      {children}
    </span>
  );
}

function describe(bar: TimelineBar, waitedFor: Record<WaitReason, string>): string {
  const parts: string[] = [];
  if (bar.waitedMs !== null && bar.waitedFor) parts.push(`waited ${formatDuration(bar.waitedMs)} for ${waitedFor[bar.waitedFor]}`);
  if (bar.ranMs !== null) parts.push(`${bar.failed ? 'failed after' : 'ran'} ${formatDuration(bar.ranMs)}`);
  else if (bar.started === null) parts.push(bar.status === 'pending_approval' ? 'waiting for your approval' : 'did not run');
  else if (bar.status === 'awaiting_sign_in') parts.push('waiting for you to sign in');
  return parts.join(', ');
}
