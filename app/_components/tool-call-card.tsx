'use client';

import { useEffect, useState } from 'react';

import { FAILED_CALL_STATUSES, isOneOf, type ToolCallStatus } from '@/db/vocabulary';

import { ToolResultView } from './tool-result-view';
import type { ToolCallView } from './types';

// Keyed by the status union: a new status does not compile until it has a label here.
const STATUS: Record<ToolCallStatus, { label: string; tone: string }> = {
  proposed: { label: 'Proposed', tone: 'bg-stone-100 text-stone-700' },
  pending_approval: { label: 'Needs your approval', tone: 'bg-amber-100 text-amber-900' },
  approved: { label: 'Approved', tone: 'bg-indigo-100 text-indigo-800' },
  auto_approved: { label: 'Allowed automatically', tone: 'bg-indigo-100 text-indigo-800' },
  denied: { label: 'Denied', tone: 'bg-red-100 text-red-800' },
  rejected: { label: 'Not run', tone: 'bg-red-100 text-red-800' },
  executing: { label: 'Running', tone: 'bg-sky-100 text-sky-800' },
  awaiting_input: { label: 'Waiting for your input', tone: 'bg-amber-100 text-amber-900' },
  succeeded: { label: 'Done', tone: 'bg-emerald-100 text-emerald-800' },
  errored: { label: 'Failed', tone: 'bg-red-100 text-red-800' },
  timed_out: { label: 'Timed out', tone: 'bg-red-100 text-red-800' },
  unknown: { label: 'Outcome unknown', tone: 'bg-red-100 text-red-800' },
  cancelled: { label: 'Cancelled', tone: 'bg-stone-200 text-stone-700' },
};

export function AnnotationBadges({ call }: { call: ToolCallView }) {
  const a = call.hints;
  const badges: { text: string; tone: string; title: string }[] = [];
  if (!a.annotated && call.server) {
    badges.push({
      text: 'not annotated',
      tone: 'border-stone-300 text-stone-600',
      title: 'The server says nothing about what this tool does (read-only, destructive…), so Switchboard asks before it runs.',
    });
  }
  if (a.readOnly && !a.destructive) {
    badges.push({
      text: call.trust === 'trusted' ? 'read-only' : 'claims read-only',
      tone: 'border-stone-300 text-stone-700',
      title:
        call.trust === 'trusted'
          ? 'The server says this tool only reads.'
          : 'An untrusted server says this tool only reads; Switchboard does not rely on it.',
    });
  }
  if (a.destructive)
    badges.push({
      text: 'destructive',
      tone: 'border-red-300 bg-red-50 text-red-800',
      title: 'The server says this tool can delete or overwrite.',
    });
  if (a.openWorld)
    badges.push({
      text: 'reaches outside systems',
      tone: 'border-amber-300 bg-amber-50 text-amber-900',
      title: 'The tool talks to systems beyond this server.',
    });
  if (call.trust === 'untrusted')
    badges.push({ text: 'untrusted server', tone: 'border-amber-300 text-amber-900', title: 'You marked this server as untrusted.' });
  return (
    <>
      {badges.map((b) => (
        <span key={b.text} title={b.title} className={`rounded-full border px-2 py-0.5 text-[11px] font-medium ${b.tone}`}>
          {b.text}
        </span>
      ))}
    </>
  );
}

function Duration({ call }: { call: ToolCallView }) {
  const [now, setNow] = useState(() => Date.now());
  const running = call.status === 'executing';
  useEffect(() => {
    if (!running) return;
    const t = setInterval(() => setNow(Date.now()), 250);
    return () => clearInterval(t);
  }, [running]);
  if (!call.startedAt) return null;
  const end = call.endedAt ? Date.parse(call.endedAt) : now;
  const ms = Math.max(0, end - Date.parse(call.startedAt));
  return <span className="tabular-nums text-xs text-stone-500">{ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`}</span>;
}

export function ToolCallHeader({ call }: { call: ToolCallView }) {
  const status = STATUS[call.status];
  return (
    <div className="flex flex-wrap items-center gap-2">
      <span className="font-mono text-[13px] font-semibold text-stone-800">
        {call.server ? `${call.server} · ${call.tool}` : call.modelName}
      </span>
      <span className={`rounded-full px-2 py-0.5 text-[11px] font-semibold ${status.tone}`} data-testid="tool-call-status">
        {status.label}
      </span>
      <AnnotationBadges call={call} />
      {call.decision?.edited && (
        <span
          className="rounded-full border border-indigo-300 px-2 py-0.5 text-[11px] font-medium text-indigo-800"
          title="You changed the arguments before approving"
        >
          edited
        </span>
      )}
      <Duration call={call} />
    </div>
  );
}

/** A tool call inline in the answer, where the model made it: collapsible arguments and result. */
export function ToolCallCard({
  call,
  progress,
}: {
  call: ToolCallView;
  progress?: { progress: number; total?: number; message?: string };
}) {
  const failed = call.result?.isError === true || isOneOf(FAILED_CALL_STATUSES, call.status);
  return (
    <details
      className={`group rounded-xl border bg-white px-3 py-2 ${failed ? 'border-red-200' : 'border-stone-200'}`}
      data-testid="tool-call"
      data-status={call.status}
    >
      <summary className="cursor-pointer list-none marker:hidden">
        <ToolCallHeader call={call} />
        {call.status === 'executing' && progress && (
          <p className="mt-1 text-xs text-sky-800" role="status">
            {progress.total ? `${Math.round((100 * progress.progress) / progress.total)}%` : `step ${progress.progress}`}
            {progress.message ? ` — ${progress.message}` : ''}
          </p>
        )}
        {call.status === 'rejected' || call.status === 'denied' ? (
          <p className="mt-1 text-xs text-red-800">{call.decision?.reason ?? call.verdict?.reason ?? ''}</p>
        ) : null}
      </summary>
      <div className="mt-2 space-y-2 border-t border-stone-100 pt-2">
        <div>
          <p className="mb-1 text-[11px] font-semibold uppercase tracking-wide text-stone-500">Arguments</p>
          <pre className="max-h-60 overflow-auto whitespace-pre-wrap break-words rounded-md bg-stone-50 p-2 font-mono text-xs">
            {JSON.stringify(call.input, null, 2)}
          </pre>
        </div>
        {call.result && (
          <div>
            <p className="mb-1 text-[11px] font-semibold uppercase tracking-wide text-stone-500">Result</p>
            <ToolResultView result={call.result} />
          </div>
        )}
        {call.verdict && <p className="text-[11px] text-stone-500">Policy: {call.verdict.reason}</p>}
      </div>
    </details>
  );
}
