'use client';

import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState } from 'react';

import type { ClientDecisionKind } from '@/db/vocabulary';
import { STREAM_EVENTS } from '@/lib/agent/events';
import type { ClientApprovalView } from '@/lib/gateway/approvals';
import { INBOX_CHANGED } from '@/lib/gateway/inbox-events';

import { api, ApiError } from '../api';

interface Inbox {
  /** The calls of the person's MCP clients that wait for them, oldest first; null until first read. */
  calls: ClientApprovalView[] | null;
  loadError: string;
  reload: () => Promise<void>;
  /** Allow once or deny; the inbox is read again whatever the answer (another tab may have decided). */
  decide: (call: ClientApprovalView, decision: ClientDecisionKind) => Promise<void>;
}

const InboxContext = createContext<Inbox | null>(null);

/**
 * The "Other clients" inbox of the whole signed-in frame (the sidebar's count, the /inbox page):
 * read from `GET /api/client-approvals` when the stream opens and whenever it says a call started
 * or stopped waiting (`GET /api/client-approvals/events`, pushed from any instance), so a client's
 * call shows in every open tab without a reload.
 */
export function InboxProvider({ children }: { children: React.ReactNode }) {
  const [calls, setCalls] = useState<ClientApprovalView[] | null>(null);
  const [loadError, setLoadError] = useState('');
  const reading = useRef(0);

  const reload = useCallback(async () => {
    const mine = ++reading.current;
    try {
      const { calls: next } = await api<{ calls: ClientApprovalView[] }>('/api/client-approvals');
      if (mine !== reading.current) return; // a newer read is on its way
      setCalls(next);
      setLoadError('');
    } catch (err) {
      if (mine === reading.current) setLoadError(err instanceof ApiError ? err.message : 'Could not load the calls waiting for you.');
    }
  }, []);

  useEffect(() => {
    // The stream says "read again" when it opens (and EventSource reopens it after a drop).
    const source = new EventSource('/api/client-approvals/events');
    source.addEventListener(INBOX_CHANGED, () => void reload());
    // Closed on purpose (too many open tabs): not reopened, or it would close another tab's in turn.
    source.addEventListener(STREAM_EVENTS.closed, () => source.close());
    return () => source.close();
  }, [reload]);

  const decide = useCallback(
    async (call: ClientApprovalView, decision: ClientDecisionKind) => {
      try {
        await api(`/api/client-approvals/${call.id}/decision`, { method: 'POST', body: { decision, argsHash: call.argsHash } });
      } catch (err) {
        // Decided elsewhere meanwhile, or gone: show the list as it is now. A decision that landed is
        // announced on the stream, which reads the list again (no second read here).
        await reload();
        throw err;
      }
    },
    [reload],
  );

  const value = useMemo(() => ({ calls, loadError, reload, decide }), [calls, loadError, reload, decide]);
  return <InboxContext.Provider value={value}>{children}</InboxContext.Provider>;
}

export function useInbox(): Inbox {
  const inbox = useContext(InboxContext);
  if (!inbox) throw new Error('useInbox outside InboxProvider');
  return inbox;
}
