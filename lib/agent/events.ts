/** Event names of a run, as sent over SSE and stored in the conversation's event log. */
export const RUN_EVENT_TYPES = [
  'run.started',
  'message.delta',
  'message.completed',
  'tool_call.proposed',
  'tool_call.approval_requested',
  'tool_call.decided',
  'tool_call.input_requested',
  'tool_call.started',
  'tool_call.progress',
  'tool_call.completed',
  'run.awaiting_approval',
  'run.awaiting_input',
  'run.completed',
  'run.failed',
  'run.cancelled',
] as const;
export type RunEventType = (typeof RUN_EVENT_TYPES)[number];

/** After one of these the run needs nobody's attention until a person acts: a stream may end. */
export const RUN_PAUSE_OR_END_EVENTS: ReadonlySet<string> = new Set([
  'run.awaiting_approval',
  'run.awaiting_input',
  'run.completed',
  'run.failed',
  'run.cancelled',
]);

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

/** Where a run's events go. The engine only ever talks to this. */
export interface EventSink {
  /** Stores the event in the conversation log (assigning its seq), then broadcasts it. */
  persist(conversationId: string, runId: string | null, type: RunEventType, data: Record<string, unknown>): Promise<BusEvent>;
  /** Broadcasts without storing: the live copy of a text delta. */
  live(conversationId: string, runId: string | null, type: RunEventType, data: Record<string, unknown>): void;
  /** Broadcasts an event that the caller stored itself (inside its own transaction). */
  broadcast(event: BusEvent): void;
}
