'use client';

import { createContext, useCallback, useContext, useMemo } from 'react';
import useSWR from 'swr';

import { api } from '../api';
import type { ConversationSummary } from '../types';

/**
 * The sidebar's conversations, held by the shell. A finished turn changes only this list (a title
 * was written, the conversation moved to the top): re-reading it is one small request, where a
 * `router.refresh()` would render the whole conversation again on the server.
 */
interface ConversationList {
  conversations: ConversationSummary[];
  /** Reads the list again; a failure keeps the one shown (the next navigation brings it). */
  reload(): Promise<void>;
}

const ConversationListContext = createContext<ConversationList | null>(null);

const LIST_PATH = '/api/conversations';
const readList = async ([path]: readonly [string, ConversationSummary[]]) =>
  (await api<{ conversations: ConversationSummary[] }>(path)).conversations;

/**
 * Through SWR, so two reloads that overlap (a turn ended, a rename) cannot put the older answer
 * last. The key carries the list the server rendered: a navigation or refresh brings a newer one,
 * which starts a key of its own and so wins over anything read before it.
 */
export function ConversationListProvider({ initial, children }: { initial: ConversationSummary[]; children: React.ReactNode }) {
  const { data, mutate } = useSWR([LIST_PATH, initial] as const, readList, {
    fallbackData: initial,
    revalidateOnMount: false,
    revalidateIfStale: false,
    revalidateOnFocus: false,
    revalidateOnReconnect: false,
    shouldRetryOnError: false,
  });
  const reload = useCallback(async () => void (await mutate()), [mutate]);
  const value = useMemo(() => ({ conversations: data, reload }), [data, reload]);
  return <ConversationListContext.Provider value={value}>{children}</ConversationListContext.Provider>;
}

/** The shell's list; outside the shell (a test rendering a page alone) an empty list that never reloads. */
export function useConversationList(): ConversationList {
  return useContext(ConversationListContext) ?? OUTSIDE_THE_SHELL;
}

const OUTSIDE_THE_SHELL: ConversationList = { conversations: [], reload: async () => {} };
