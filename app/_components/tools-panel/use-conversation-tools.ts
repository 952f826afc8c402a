'use client';

import { useCallback, useEffect, useRef } from 'react';
import useSWR from 'swr';

import { api, ApiError } from '@/app/_components/api';

import type { ConversationToolsView, GrantBody } from './tools-view';

export type ToolsActions = {
  /** PUT …/grants; the new view replaces the old. Throws ApiError (with `field`) for the caller to place. */
  put: (body: GrantBody) => Promise<void>;
  /** DELETE …/grants/:grantId. */
  revoke: (grantId: string) => Promise<void>;
};

const readView = (path: string) => api<ConversationToolsView>(path);

/**
 * The conversation's tools and grants, read on mount, when the tab comes back into view (another tab
 * may have changed a grant) and whenever `refreshKey` changes (the page bumps it when a run ends:
 * changes apply from the next step, and a run may have used a grant up or crossed into taint). Every
 * change answers with the whole new view.
 *
 * Through SWR, so answers cannot land out of order: a read that started before a change and ends
 * after it is dropped instead of putting back the view from before the change, and a newer read
 * wins over an older one.
 */
export function useConversationTools(conversationId: string, refreshKey: number) {
  const base = `/api/conversations/${conversationId}`;
  const { data, error, mutate } = useSWR<ConversationToolsView, unknown>(`${base}/tools`, readView, { shouldRetryOnError: false });

  const shownKey = useRef(refreshKey);
  useEffect(() => {
    if (shownKey.current === refreshKey) return;
    shownKey.current = refreshKey;
    void mutate();
  }, [refreshKey, mutate]);

  const put = useCallback(
    async (body: GrantBody) => {
      await mutate(await api<ConversationToolsView>(`${base}/grants`, { method: 'PUT', body }), { revalidate: false });
    },
    [base, mutate],
  );
  const revoke = useCallback(
    async (grantId: string) => {
      const next = await api<ConversationToolsView>(`${base}/grants/${encodeURIComponent(grantId)}`, { method: 'DELETE' });
      await mutate(next, { revalidate: false });
    },
    [base, mutate],
  );
  const loadError = error ? (error instanceof ApiError ? error.message : 'Could not load the tools of this conversation.') : '';
  return { view: data ?? null, loadError, actions: { put, revoke } satisfies ToolsActions };
}
