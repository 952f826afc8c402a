'use client';

import { useCallback, useEffect, useState } from 'react';

import { api, ApiError } from '@/app/_components/api';

import type { ConversationToolsView, GrantBody } from './tools-view';

export type ToolsActions = {
  /** PUT …/grants; the new view replaces the old. Throws ApiError (with `field`) for the caller to place. */
  put: (body: GrantBody) => Promise<void>;
  /** DELETE …/grants/:grantId. */
  revoke: (grantId: string) => Promise<void>;
};

/**
 * The conversation's tools and grants, read on mount and again whenever `refreshKey` changes (the
 * page bumps it when a run ends: changes apply from the next step, and a run may have used a grant
 * up or crossed into taint). Every change answers with the whole new view.
 */
export function useConversationTools(conversationId: string, refreshKey: number) {
  const [view, setView] = useState<ConversationToolsView | null>(null);
  const [loadError, setLoadError] = useState('');
  const base = `/api/conversations/${conversationId}`;

  const load = useCallback(
    () =>
      api<ConversationToolsView>(`${base}/tools`).then(
        (v) => (setView(v), setLoadError('')),
        (err) => setLoadError(err instanceof ApiError ? err.message : 'Could not load the tools of this conversation.'),
      ),
    [base],
  );
  useEffect(() => {
    void load();
  }, [load, refreshKey]);

  const put = useCallback(
    async (body: GrantBody) => setView(await api<ConversationToolsView>(`${base}/grants`, { method: 'PUT', body })),
    [base],
  );
  const revoke = useCallback(
    async (grantId: string) =>
      setView(await api<ConversationToolsView>(`${base}/grants/${encodeURIComponent(grantId)}`, { method: 'DELETE' })),
    [base],
  );
  return { view, loadError, reload: load, actions: { put, revoke } satisfies ToolsActions };
}
