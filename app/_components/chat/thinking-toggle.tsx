'use client';

import { useId, useState } from 'react';

import { THINKING_EFFORTS, type ThinkingEffort } from '@/db/vocabulary';
import type { ThinkingKind } from '@/lib/model/thinking-kind';

import { api, ApiError } from '../api';
import type { ConversationSummary } from '../types';
import { cx, Switch } from '../ui/index';

/**
 * Extended thinking for this conversation: from the next turn the model thinks before it answers
 * (the thinking is shown folded above the answer). A turn already running keeps its setting. A
 * model that takes a budget thinks up to the conversation's budget; one that only thinks
 * adaptively (`kind`, from the models listing) decides how much itself, with the effort chosen here.
 */
export function ThinkingToggle({
  conversationId,
  initial,
  kind = 'budget',
  track,
}: {
  conversationId: string;
  initial: ConversationSummary['thinking'];
  kind?: ThinkingKind;
  /** Registers the save, so a message sent meanwhile waits for it (./pending-settings.ts). */
  track?: <T>(save: Promise<T>) => Promise<T>;
}) {
  const [setting, setSetting] = useState(initial);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const effortId = useId();

  async function change(next: { enabled: boolean; effort?: ThinkingEffort }) {
    setBusy(true);
    setError('');
    try {
      const save = api<ConversationSummary>(`/api/conversations/${conversationId}`, {
        method: 'PATCH',
        body: { thinking: { enabled: next.enabled, budgetTokens: setting.budgetTokens, effort: next.effort ?? setting.effort } },
      });
      const saved = await (track ? track(save) : save);
      setSetting(saved.thinking);
    } catch (err) {
      setError(err instanceof ApiError ? err.message : 'Could not change the setting.');
    } finally {
      setBusy(false);
    }
  }

  const { enabled } = setting;
  const adaptive = kind === 'adaptive';
  return (
    <div className="flex flex-wrap items-center gap-x-2 gap-y-1 px-3 text-xs text-faint">
      <Switch
        checked={enabled}
        onChange={(next) => void change({ enabled: next })}
        busy={busy}
        label="Extended thinking"
        data-testid="thinking-toggle"
      />
      <span className={enabled ? 'text-muted' : undefined} title="Applies from the next message; a turn already running keeps its setting.">
        Extended thinking:{' '}
        {!enabled ? 'off' : adaptive ? 'on, the model decides how much' : `on, up to ${setting.budgetTokens.toLocaleString('en')} tokens`}
      </span>
      {enabled && adaptive && (
        <>
          <label htmlFor={effortId}>Effort</label>
          <select
            id={effortId}
            value={setting.effort}
            disabled={busy}
            onChange={(e) => void change({ enabled: true, effort: e.target.value as ThinkingEffort })}
            data-testid="thinking-effort"
            className={cx(
              'h-7 cursor-pointer rounded-control border border-border bg-surface pl-2 pr-6 text-xs text-muted',
              'hover:border-border-strong hover:text-fg focus:border-focus focus:outline-none focus:ring-3 focus:ring-focus/25',
              'disabled:cursor-progress disabled:opacity-60',
            )}
          >
            {THINKING_EFFORTS.map((e) => (
              <option key={e} value={e}>
                {e}
              </option>
            ))}
          </select>
        </>
      )}
      {error && (
        <span role="alert" className="text-danger-text">
          {error}
        </span>
      )}
    </div>
  );
}
