'use client';

import { TriangleAlert } from 'lucide-react';
import { useEffect, useId, useState } from 'react';

import type { ModelsView } from '@/lib/chat/model-choice';
import type { ThinkingKind } from '@/lib/model/thinking-kind';

import { api, ApiError } from '../api';
import type { ConversationSummary } from '../types';
import { cx } from '../ui/index';

/**
 * The conversation's model, beside the thinking switch: the models the server lists
 * (GET /api/models) in a compact menu that saves at once (PATCH { model }); the next message asks
 * the model chosen, a turn already running keeps its own. With one model there is nothing to
 * choose, so it only says which model answers.
 */
export function ModelPicker({
  conversationId,
  initial,
  track,
  onThinkingKind,
}: {
  conversationId: string;
  initial: string;
  /** Registers the save, so a message sent meanwhile waits for it (./pending-settings.ts). */
  track?: <T>(save: Promise<T>) => Promise<T>;
  /** Told how the chosen model thinks (a budget, or adaptively with an effort), once it is known and on each change. */
  onThinkingKind?: (kind: ThinkingKind) => void;
}) {
  const [model, setModel] = useState(initial);
  const [listing, setListing] = useState<ModelsView | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const id = useId();

  useEffect(() => {
    let live = true;
    api<ModelsView>('/api/models')
      .then((view) => live && setListing(view))
      .catch((err) => live && setError(err instanceof ApiError ? err.message : 'Could not list the models.'));
    return () => {
      live = false;
    };
  }, []);

  async function change(next: string) {
    const before = model;
    setModel(next);
    setBusy(true);
    setError('');
    try {
      const save = api<ConversationSummary>(`/api/conversations/${conversationId}`, { method: 'PATCH', body: { model: next } });
      setModel((await (track ? track(save) : save)).model);
    } catch (err) {
      setModel(before);
      setError(err instanceof ApiError ? err.message : 'Could not change the model.');
    } finally {
      setBusy(false);
    }
  }

  const models = listing?.models ?? [];
  const current = models.find((m) => m.id === model);
  // A model the server no longer lists stays visible as what the conversation had.
  const options = current || !listing ? models : [{ id: model, label: `${model} (no longer offered)` }, ...models];
  const label = current?.label ?? model;
  const kind = current?.thinking;
  useEffect(() => {
    if (kind) onThinkingKind?.(kind);
  }, [kind, onThinkingKind]);

  return (
    <div className="flex min-w-0 items-center gap-1.5 text-xs text-faint" data-testid="model-picker">
      {options.length > 1 ? (
        <>
          <label htmlFor={id}>Model</label>
          <select
            id={id}
            value={model}
            disabled={busy}
            aria-busy={busy || undefined}
            onChange={(e) => void change(e.target.value)}
            title={current ? limitsText(current) : undefined}
            className={cx(
              'h-7 max-w-56 cursor-pointer truncate rounded-control border border-border bg-surface pl-2 pr-6 text-xs text-muted',
              'hover:border-border-strong hover:text-fg focus:border-focus focus:outline-none focus:ring-3 focus:ring-focus/25',
              'disabled:cursor-progress disabled:opacity-60',
            )}
          >
            {options.map((m) => (
              <option key={m.id} value={m.id}>
                {m.label}
              </option>
            ))}
          </select>
        </>
      ) : (
        <span className="truncate text-muted" title={current ? limitsText(current) : undefined}>
          Model: {label}
        </span>
      )}
      {listing?.error && (
        <span className="inline-flex items-center" title={listing.error}>
          <TriangleAlert className="size-3.5 text-warning-text" aria-hidden />
          <span className="sr-only">{listing.error}</span>
        </span>
      )}
      {error && (
        <span role="alert" className="text-danger-text">
          {error}
        </span>
      )}
    </div>
  );
}

function limitsText(m: { contextWindow: number; maxOutputTokens: number }): string {
  return `Reads up to ${m.contextWindow.toLocaleString('en')} tokens, writes up to ${m.maxOutputTokens.toLocaleString('en')} per answer.`;
}
