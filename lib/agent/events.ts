import type { Db } from '@/db/connection';
import type { AppendOptions } from '@/db/queries/events';
import type { MessageRow } from '@/db/queries/messages';

import type { EventPayload } from './event-payloads';

/** Event names of a run, as sent over SSE and stored in the conversation's event log. */
export const RUN_EVENT_TYPES = [
  'run.started',
  'message.delta',
  'message.completed',
  'message.discarded',
  'tool_call.proposed',
  'tool_call.approval_requested',
  'tool_call.decided',
  'tool_call.input_requested',
  'tool_call.sign_in_requested',
  'tool_call.started',
  'tool_call.progress',
  'tool_call.task',
  'tool_call.task_status',
  'tool_call.completed',
  'run.awaiting_approval',
  'run.awaiting_input',
  'run.awaiting_sign_in',
  'run.retrying',
  'history.summarized',
  'run.completed',
  'run.failed',
  'run.cancelled',
] as const;
export type RunEventType = (typeof RUN_EVENT_TYPES)[number];

/** The run has ended: nothing more will happen in it. */
export const RUN_END_EVENTS: ReadonlySet<string> = new Set<RunEventType>(['run.completed', 'run.failed', 'run.cancelled']);

/** The run waits for a person (a decision, an answer, a sign-in) and goes on once they act. */
export const RUN_PAUSE_EVENTS: ReadonlySet<string> = new Set<RunEventType>([
  'run.awaiting_approval',
  'run.awaiting_input',
  'run.awaiting_sign_in',
]);

/** Seen only while the run runs: after a pause, one of these means it went on. */
export const RUN_RUNNING_EVENTS: ReadonlySet<string> = new Set<RunEventType>([
  'run.started',
  'message.delta',
  'message.discarded',
  'tool_call.started',
  'run.retrying',
]);

/** After one of these the run needs nobody's attention until a person acts: a stream may end. */
export const RUN_PAUSE_OR_END_EVENTS: ReadonlySet<string> = new Set([...RUN_PAUSE_EVENTS, ...RUN_END_EVENTS]);

/**
 * Events about one SSE stream itself, never stored and never part of a run: a keep-alive the
 * page can see (a silent stream is a dead one), and the server ending this stream on purpose.
 */
export const STREAM_EVENTS = { ping: 'ping', closed: 'stream.closed' } as const;
export type StreamEventType = (typeof STREAM_EVENTS)[keyof typeof STREAM_EVENTS];

/**
 * Why the server ended a stream: `too_many_streams` (a newer stream of the same conversation or
 * user took its place; the page must not reconnect by itself or two tabs would evict each other
 * forever) or `idle` (the run waits for a person and nothing happened for a while).
 */
export type StreamClosedReason = 'too_many_streams' | 'idle';
export interface StreamClosed {
  reason: StreamClosedReason;
  /** Words for the person: what happened and how to go on. */
  message: string;
}

/**
 * What travels on the bus and over SSE. Persisted events have a `seq`; live-only text deltas
 * do not (they are stored coalesced, under a seq of their own, a moment later).
 */
export interface BusEvent {
  conversationId: string;
  runId: string | null;
  type: string;
  seq?: number;
  data: Record<string, unknown>;
}

/** One stored event as a writer gives it: its name and the data that name carries (./event-payloads.ts). */
export type RunEvent = { [T in RunEventType]: { type: T; data: EventPayload<T> } }[RunEventType];

/** What `EventSink.storeWith` wrote: the events as announced, the message, the guard's returned row. */
export interface StoredWith {
  events: BusEvent[];
  message: MessageRow | null;
  guarded: Record<string, unknown> | null;
  conversationTitle: string;
}

/** Where a run's events go. The engine only ever talks to this. */
export interface EventSink {
  /**
   * Stores the event in the conversation log (assigning its seq) and announces it: by the same
   * statement on the database's bus, once it is committed on Redis (./redis-bus.ts).
   */
  persist<T extends RunEventType>(conversationId: string, runId: string | null, type: T, data: EventPayload<T>): Promise<BusEvent>;
  /**
   * Stores events in the log through `db` (the caller's transaction) and announces them together
   * when that transaction commits (never if it rolls back): the database's bus by a notification
   * the same statement sends, Redis by a message published after the commit.
   * `runStart`: the first event opens its run (its seq becomes the run's `start_seq`).
   */
  store(
    db: Db,
    conversationId: string,
    runId: string | null,
    events: readonly RunEvent[],
    opts?: { runStart?: boolean },
  ): Promise<BusEvent[]>;
  /**
   * `store` with what belongs in the same statement (db/queries/events.ts `appendToLog`): the swap
   * that makes the events true, a message, the model tokens. Null when the guard changed nothing
   * (then nothing was written and nothing announced).
   */
  storeWith(
    db: Db,
    conversationId: string,
    runId: string | null,
    events: readonly RunEvent[],
    opts: Omit<AppendOptions, 'notice'>,
  ): Promise<StoredWith | null>;
  /** Broadcasts without storing: the live copy of a text delta. */
  live<T extends RunEventType>(conversationId: string, runId: string | null, type: T, data: EventPayload<T>): void;
}
