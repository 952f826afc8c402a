'use client';

import { useState } from 'react';

import type { DecisionKind } from '@/db/vocabulary';

import { ToolCallHeader } from './tool-call-card';
import type { ToolCallView } from './types';

export type { DecisionKind };

/**
 * A call waiting for the person: the exact arguments, the hints as plain badges, and the choices.
 * Everything is a button or a field, so it works from the keyboard.
 */
export function ApprovalCard({
  call,
  onDecide,
  onStop,
}: {
  call: ToolCallView;
  onDecide: (call: ToolCallView, decision: DecisionKind, reason?: string, input?: Record<string, unknown>) => Promise<void>;
  onStop: () => void;
}) {
  const [mode, setMode] = useState<'choose' | 'deny' | 'edit'>('choose');
  const [reason, setReason] = useState('');
  const [draft, setDraft] = useState(() => JSON.stringify(call.input, null, 2));
  const [draftError, setDraftError] = useState('');
  const [busy, setBusy] = useState(false);
  const decide = async (d: DecisionKind, r?: string, input?: Record<string, unknown>) => {
    setBusy(true);
    try {
      await onDecide(call, d, r, input);
    } finally {
      setBusy(false);
    }
  };
  // Edit-then-approve: the server validates the edited input against the tool's schema again.
  const approveEdited = () => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(draft);
    } catch (err) {
      return setDraftError(`Not valid JSON: ${(err as Error).message}`);
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return setDraftError('The arguments must be a JSON object.');
    setDraftError('');
    void decide('allow_once', undefined, parsed as Record<string, unknown>);
  };
  const warnings = call.verdict?.warnings ?? [];
  return (
    <section
      className="rounded-xl border-2 border-amber-300 bg-amber-50/60 px-4 py-3"
      aria-label={`Approve ${call.server ?? ''} ${call.tool ?? call.modelName}?`}
      data-testid="approval-card"
    >
      <ToolCallHeader call={call} />
      <p className="mt-1 text-sm text-stone-700">{call.verdict?.reason}</p>
      {warnings.map((w) => (
        <p key={w} className="mt-1 text-sm font-medium text-amber-900">
          ⚠ {w}
        </p>
      ))}
      <p className="mb-1 mt-3 text-[11px] font-semibold uppercase tracking-wide text-stone-500">Exact arguments</p>
      <pre
        className="max-h-72 overflow-auto whitespace-pre-wrap break-words rounded-md border border-stone-200 bg-white p-2 font-mono text-xs"
        data-testid="approval-arguments"
      >
        {JSON.stringify(call.input, null, 2)}
      </pre>
      <p className="mt-1 font-mono text-[10px] text-stone-400" title="SHA-256 of the arguments; your decision is bound to it">
        args {call.argsHash.slice(0, 16)}…
      </p>
      {mode === 'edit' ? (
        <div className="mt-3 space-y-2">
          <label className="block text-sm">
            <span className="mb-1 block text-stone-700">Edit the arguments (JSON), then approve</span>
            <textarea
              autoFocus
              value={draft}
              rows={Math.min(14, draft.split('\n').length + 1)}
              onChange={(e) => setDraft(e.target.value)}
              className="w-full rounded-lg border border-stone-300 bg-white p-2 font-mono text-xs outline-none focus:border-indigo-500"
            />
          </label>
          {draftError && (
            <p className="text-sm text-red-800" role="alert">
              {draftError}
            </p>
          )}
          <div className="flex flex-wrap gap-2">
            <button
              disabled={busy}
              onClick={approveEdited}
              className="rounded-lg bg-indigo-600 px-3 py-1.5 text-sm font-semibold text-white hover:bg-indigo-700 disabled:opacity-50"
            >
              Approve edited
            </button>
            <button
              type="button"
              onClick={() => setMode('choose')}
              className="rounded-lg px-3 py-1.5 text-sm text-stone-700 hover:bg-stone-200"
            >
              Back
            </button>
          </div>
        </div>
      ) : mode === 'deny' ? (
        <form
          className="mt-3 flex flex-wrap items-end gap-2"
          onSubmit={(e) => {
            e.preventDefault();
            void decide('deny', reason.trim() || undefined);
          }}
        >
          <label className="min-w-48 flex-1 text-sm">
            <span className="mb-1 block text-stone-700">Reason for the model (optional)</span>
            <input
              autoFocus
              value={reason}
              maxLength={1000}
              onChange={(e) => setReason(e.target.value)}
              className="w-full rounded-lg border border-stone-300 bg-white px-2 py-1.5 text-sm outline-none focus:border-indigo-500"
            />
          </label>
          <button
            disabled={busy}
            className="rounded-lg bg-red-700 px-3 py-1.5 text-sm font-semibold text-white hover:bg-red-800 disabled:opacity-50"
          >
            Deny
          </button>
          <button
            type="button"
            onClick={() => setMode('choose')}
            className="rounded-lg px-3 py-1.5 text-sm text-stone-700 hover:bg-stone-200"
          >
            Back
          </button>
        </form>
      ) : (
        <div className="mt-3 flex flex-wrap gap-2">
          <button
            disabled={busy}
            onClick={() => void decide('allow_once')}
            className="rounded-lg bg-indigo-600 px-3 py-1.5 text-sm font-semibold text-white hover:bg-indigo-700 disabled:opacity-50"
          >
            Allow once
          </button>
          <button
            disabled={busy}
            onClick={() => setMode('edit')}
            className={[
              'rounded-lg border border-stone-300 bg-white px-3',
              'py-1.5 text-sm font-semibold text-stone-800 hover:bg-stone-100 disabled:opacity-50',
            ].join(' ')}
          >
            Edit…
          </button>
          <button
            disabled={busy}
            onClick={() => setMode('deny')}
            className={[
              'rounded-lg border border-red-300 bg-white px-3',
              'py-1.5 text-sm font-semibold text-red-800 hover:bg-red-50 disabled:opacity-50',
            ].join(' ')}
          >
            Deny…
          </button>
          <button onClick={onStop} className="rounded-lg px-3 py-1.5 text-sm text-stone-700 hover:bg-stone-200">
            Stop
          </button>
        </div>
      )}
    </section>
  );
}
