'use client';

import { createContext, useCallback, useContext, useMemo, useState } from 'react';

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

export function ConversationListProvider({ initial, children }: { initial: ConversationSummary[]; children: React.ReactNode }) {
  const [state, setState] = useState({ from: initial, conversations: initial });
  // A server render (navigation, refresh) brings a newer list: it wins over the one read here.
  let conversations = state.conversations;
  if (state.from !== initial) {
    conversations = initial;
    setState({ from: initial, conversations: initial });
  }
  const reload = useCallback(async () => {
    try {
      const { conversations: fresh } = await api<{ conversations: ConversationSummary[] }>('/api/conversations');
      setState((s) => ({ ...s, conversations: fresh }));
    } catch {
      // Kept as shown; nothing the person needs to act on.
    }
  }, []);
  const value = useMemo(() => ({ conversations, reload }), [conversations, reload]);
  return <ConversationListContext.Provider value={value}>{children}</ConversationListContext.Provider>;
}

/** The shell's list; outside the shell (a test rendering a page alone) an empty list that never reloads. */
export function useConversationList(): ConversationList {
  return useContext(ConversationListContext) ?? OUTSIDE_THE_SHELL;
}

const OUTSIDE_THE_SHELL: ConversationList = { conversations: [], reload: async () => {} };
