'use client';

import { useState } from 'react';

import { api, ApiError } from './api';
import type { ConversationSummary } from './types';
import { Switch } from './ui';

/**
 * Extended thinking for this conversation: from the next turn the model thinks before it answers
 * (the thinking is shown folded above the answer). A turn already running keeps its setting.
 */
export function ThinkingToggle({
  conversationId,
  initial,
  track,
}: {
  conversationId: string;
  initial: ConversationSummary['thinking'];
  /** Registers the save, so a message sent meanwhile waits for it (./pending-settings.ts). */
  track?: <T>(save: Promise<T>) => Promise<T>;
}) {
  const [enabled, setEnabled] = useState(initial.enabled);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');

  async function change(next: boolean) {
    setBusy(true);
    setError('');
    try {
      const save = api<ConversationSummary>(`/api/conversations/${conversationId}`, {
        method: 'PATCH',
        body: { thinking: { enabled: next, budgetTokens: initial.budgetTokens } },
      });
      const saved = await (track ? track(save) : save);
      setEnabled(saved.thinking.enabled);
    } catch (err) {
      setError(err instanceof ApiError ? err.message : 'Could not change the setting.');
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="flex flex-wrap items-center gap-x-2 gap-y-1 px-3 text-xs text-faint">
      <Switch
        checked={enabled}
        onChange={(next) => void change(next)}
        busy={busy}
        label="Extended thinking"
        data-testid="thinking-toggle"
      />
      <span className={enabled ? 'text-muted' : undefined} title="Applies from the next message; a turn already running keeps its setting.">
        Extended thinking: {enabled ? `on, up to ${initial.budgetTokens.toLocaleString('en')} tokens` : 'off'}
      </span>
      {error && (
        <span role="alert" className="text-danger-text">
          {error}
        </span>
      )}
    </div>
  );
}
