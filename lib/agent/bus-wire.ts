import type { Db } from '@/db/connection';
import { listEventsAfter } from '@/db/queries/events';
import { errorSummary } from '@/lib/log-safe';

import { toBusEvent } from './event-payloads';
import type { BusEvent } from './events';

/**
 * What every bus sends (./bus.ts over Postgres NOTIFY, ./redis-bus.ts over Redis pub/sub) and
 * how a receiver hands it to the subscribers of a conversation.
 *
 * A message is one item, or several in `es`. A stored event travels as `e` with its `seq`, or as
 * `o` (its place among the events of the statement that stored them, from 1) when the writer did
 * not know the seqs yet: then the message's `b` is the seq before the first. An event too large
 * to travel inline travels as a pointer to its row (`ref`), read back from the log.
 */
export type WireItem = {
  e?: Omit<BusEvent, 'seq'> & { seq?: number };
  o?: number;
  ref?: { conversationId: string; o?: number; seq?: number };
};
export type WireMessage = WireItem & { b?: number; es?: WireItem[] };

export type Listener = (event: BusEvent) => void;

/** The subscribers of each conversation on one bus, and what they are told. */
export interface Subscribers {
  add(conversationId: string, listener: Listener, onResume?: () => void): { first: boolean; remove: () => boolean };
  has(conversationId: string): boolean;
  dispatch(event: BusEvent): void;
  /** The bus may have missed events (its connection was lost and is back): every subscriber reads the log. */
  resumeAll(): void;
  /** Hands a received message's events to their subscribers, in order. */
  receive(payload: string, db: Db): Promise<void>;
}

export function createSubscribers(): Subscribers {
  const byConversation = new Map<string, { listeners: Set<Listener>; resumes: Set<() => void> }>();

  const safely = (what: string, fn: () => void) => {
    try {
      fn();
    } catch (err) {
      console.error(`[bus] ${what} failed:`, errorSummary(err));
    }
  };

  const subscribers: Subscribers = {
    add(conversationId, listener, onResume) {
      let entry = byConversation.get(conversationId);
      const first = !entry;
      if (!entry) byConversation.set(conversationId, (entry = { listeners: new Set(), resumes: new Set() }));
      const mine = entry;
      mine.listeners.add(listener);
      if (onResume) mine.resumes.add(onResume);
      return {
        first,
        /** True when it was the conversation's last subscriber. */
        remove() {
          mine.listeners.delete(listener);
          if (onResume) mine.resumes.delete(onResume);
          if (mine.listeners.size > 0 || byConversation.get(conversationId) !== mine) return false;
          byConversation.delete(conversationId);
          return true;
        },
      };
    },
    has: (conversationId) => byConversation.has(conversationId),
    dispatch(event) {
      for (const l of byConversation.get(event.conversationId)?.listeners ?? []) safely('listener', () => l(event));
    },
    resumeAll() {
      for (const { resumes } of byConversation.values()) for (const r of resumes) safely('resume', r);
    },
    async receive(payload, db) {
      let msg: WireMessage;
      try {
        msg = JSON.parse(payload);
      } catch {
        return;
      }
      const seqOf = (item: { seq?: number; o?: number }) =>
        item.seq ?? (msg.b !== undefined && item.o !== undefined ? msg.b + item.o : undefined);
      // In order: a stored event too large to travel inline is read back before the next one is dispatched.
      for (const item of msg.es ?? [msg]) {
        if (item.e) {
          const seq = seqOf({ seq: item.e.seq, o: item.o });
          subscribers.dispatch(seq === undefined ? { ...item.e } : { ...item.e, seq });
        } else if (item.ref && subscribers.has(item.ref.conversationId)) {
          const seq = seqOf(item.ref);
          if (seq === undefined) continue;
          const [row] = await listEventsAfter(db, item.ref.conversationId, seq - 1, 1);
          if (row?.seq === seq) subscribers.dispatch(toBusEvent(row));
        }
      }
    },
  };
  return subscribers;
}
