import type { Db } from '@/db/connection';
import { hasRunEventAfter, listEventsAfter, type EventRow } from '@/db/queries/events';
import { getActiveRun, getRun, type RunRow } from '@/db/queries/runs';
import { listDiscardedMessageIds } from '@/db/queries/streamed-text';
import { CONFIG_DEFAULTS, readConfig, type Env } from '@/lib/config';
import { errorSummary } from '@/lib/log-safe';

import type { EventBus } from './bus';
import { toBusEvent } from './event-payloads';
import {
  RUN_END_EVENTS,
  RUN_PAUSE_EVENTS,
  RUN_PAUSE_OR_END_EVENTS,
  STREAM_EVENTS,
  type BusEvent,
  type StreamClosed,
  type StreamEventType,
} from './events';

export const SSE_HEADERS = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache, no-transform',
  'X-Accel-Buffering': 'no',
  Connection: 'keep-alive',
} as const;

/** How often a stream with nothing to say sends `ping` (and checks the log and the run): SSE_PING_MS. */
export const PING_INTERVAL_MS = CONFIG_DEFAULTS.SSE_PING_MS;
/** How long a stream waits on a paused run without any event before it closes (`idle`): SSE_PAUSED_IDLE_MS. */
export const PAUSED_IDLE_MS = CONFIG_DEFAULTS.SSE_PAUSED_IDLE_MS;
/** Stored events read per query when replaying, and the most events a stream holds in memory. */
export const REPLAY_PAGE_SIZE = 200;
/**
 * A stream that just wrote gathers live text deltas arriving within this long into its next
 * write: the first after a quiet spell goes at once, and so does any stored event; a stream of
 * deltas then costs a socket write ~50 times a second rather than one per delta.
 */
export const WRITE_GATHER_MS = 20;

/**
 * Stream timing from the configuration: `SSE_PING_MS` and `SSE_PAUSED_IDLE_MS`. Tests shorten
 * them; the page learns the ping interval from the server, since it gives up on a stream that
 * stays silent for two of them.
 */
export function streamTimingFrom(env?: Env): { pingMs: number; pausedIdleMs: number } {
  const config = readConfig(env);
  return { pingMs: config.SSE_PING_MS, pausedIdleMs: config.SSE_PAUSED_IDLE_MS };
}

export const IDLE: StreamClosed = {
  reason: 'idle',
  message: 'The turn is waiting for you. This page stopped listening until you act on it.',
};

/** One SSE frame: `id:` only for stored events, so Last-Event-ID always names a stored seq. */
export function encodeSseEvent(e: BusEvent): string {
  const payload = JSON.stringify({ ...e.data, seq: e.seq ?? null, runId: e.runId });
  const lines = e.seq !== undefined ? [`id: ${e.seq}`] : [];
  lines.push(`event: ${e.type}`);
  // JSON.stringify escapes newlines, so one data line is enough.
  lines.push(`data: ${payload}`);
  return `${lines.join('\n')}\n\n`;
}

/** A frame about the stream itself: no id, so it never moves Last-Event-ID. */
export function encodeStreamEvent(type: StreamEventType, data: object): string {
  return `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
}

export interface EventStreamOptions {
  db: Db;
  bus: EventBus;
  conversationId: string;
  afterSeq: number;
  signal?: AbortSignal;
  pingMs?: number;
  pausedIdleMs?: number;
  pageSize?: number;
  /** Default `WRITE_GATHER_MS`. */
  gatherMs?: number;
  /**
   * Reads the conversation's active run, at open and at each ping. The app passes the engine's
   * `activeRunOf`, which also takes over a run whose lease lapsed; the default only reads.
   */
  activeRun?: () => Promise<RunRow | null>;
  /**
   * Counts the open stream against the caps. `close` ends it with a final `stream.closed`; the
   * returned function counts it out when it ends for any reason.
   */
  register?: (close: (closed: StreamClosed) => void) => () => void;
  /**
   * With no active run, the stream still stays live while this says so (read at open and at each
   * ping): calls asked by an interactive view wait for the person or run, and every open page
   * shows their decision and end (./view-calls.ts). Closed as idle like a paused run.
   */
  holdWhile?: () => Promise<boolean>;
}

/**
 * A conversation's events after `afterSeq`: the stored ones replayed, then live ones until the
 * active run pauses or ends. Null when there is nothing to replay and no run is active (the
 * route answers 204 so EventSource stops reconnecting).
 *
 * Everything is produced in `pull()`, so a slow reader holds the queries back: the log is read a
 * page at a time, and a reader that falls a page behind the live events reads them from the log
 * again. A stream never holds more than one page of events.
 */
export async function openEventStream(opts: EventStreamOptions): Promise<ReadableStream<Uint8Array> | null> {
  const { db, bus, conversationId } = opts;
  const pageSize = opts.pageSize ?? REPLAY_PAGE_SIZE;
  const readActiveRun = opts.activeRun ?? (() => getActiveRun(db, conversationId));

  // Where the next events come from: the log (replay, catching up) or the bus (live).
  let source: 'log' | 'live' = 'log';
  let live: BusEvent[] = [];
  let lastSeq = opts.afterSeq;
  // The newest seq the bus announced: one above lastSeq means the log has more to read.
  let announced = opts.afterSeq;
  // The bus may have missed events (it reconnected): the log is read again once that is known.
  let busMissed = false;
  let wake: (() => void) | undefined;
  let lastWriteAt = Number.NEGATIVE_INFINITY;
  const gatherMs = opts.gatherMs ?? WRITE_GATHER_MS;
  const poke = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };

  const unsubscribe = await bus.subscribe(
    conversationId,
    (e) => {
      if (e.seq !== undefined) announced = Math.max(announced, e.seq);
      // While reading the log, stored events are left to the log; live-only text deltas are kept
      // so text keeps flowing after the catch-up (the page drops what it has already seen).
      if (source === 'live' || e.seq === undefined) live.push(e);
      if (live.length > pageSize) {
        // A reader that fell a page behind reads the rest from the log: memory stays bounded.
        source = 'log';
        live = [];
      }
      poke();
    },
    // The bus lost its connection and listens again: what it missed meanwhile is read from the
    // log now, not at the next ping (the run may have ended while it was away).
    () => {
      busMissed = true;
      source = 'log';
      live = live.filter((e) => e.seq === undefined);
      poke();
    },
  );
  let followed: RunRow | null;
  let firstPage: EventRow[] | undefined;
  // No run to follow, but the conversation's views have calls that have not ended: live until they do.
  let holding = false;
  try {
    followed = await readActiveRun();
    firstPage = await listEventsAfter(db, conversationId, lastSeq, pageSize);
    holding = !followed && opts.holdWhile !== undefined && (await opts.holdWhile());
  } catch (err) {
    unsubscribe();
    throw err;
  }
  if ((!followed && !holding && firstPage.length === 0) || opts.signal?.aborted) {
    unsubscribe();
    return null;
  }

  const encoder = new TextEncoder();
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let release: (() => void) | undefined;
  let finished = false;
  // The followed run has paused or ended (or, with no run, the log has been read): close after this.
  let done = false;
  // Nothing to replay: say hello at once, so the page knows the stream is live.
  let pingNow = firstPage.length === 0;
  let tickDue = false;
  let lastActivity = Date.now();
  const timer = setInterval(() => {
    tickDue = true;
    poke();
  }, opts.pingMs ?? PING_INTERVAL_MS);

  const finish = (closed?: StreamClosed) => {
    if (finished) return;
    finished = true;
    clearInterval(timer);
    unsubscribe();
    release?.();
    opts.signal?.removeEventListener('abort', onAbort);
    try {
      if (closed) controller.enqueue(encoder.encode(encodeStreamEvent(STREAM_EVENTS.closed, closed)));
      controller.close();
    } catch {
      // the client went away first
    }
    poke();
  };
  const onAbort = () => finish();
  opts.signal?.addEventListener('abort', onAbort, { once: true });

  // Messages whose streamed text was discarded (a take-over, ./take-over.ts): their deltas are left out.
  const discarded = new Set<string>();
  let discardsRead = false;
  const isDiscardedDelta = (e: BusEvent) => e.type === 'message.delta' && discarded.has(e.data.messageId as string);

  /** Frames of the given events; marks the stream done at an end, or at a pause that is current. */
  async function deliver(batch: BusEvent[]): Promise<string> {
    let text = '';
    let pauseSeq: number | undefined;
    for (const e of batch) {
      if (e.seq !== undefined) lastSeq = e.seq;
      if (e.type === 'message.discarded') discarded.add(e.data.messageId as string);
      if (!isDiscardedDelta(e)) text += encodeSseEvent(e);
      if (!followed || e.runId !== followed.id || e.seq === undefined) continue;
      if (RUN_END_EVENTS.has(e.type)) {
        done = true;
        break;
      }
      if (RUN_PAUSE_EVENTS.has(e.type)) pauseSeq = e.seq;
    }
    lastActivity = Date.now();
    if (!done && pauseSeq !== undefined) done = await isCurrentPause(followed!.id, pauseSeq);
    return text;
  }

  // A replayed pause may be history (the run paused, was decided, went on): it ends the stream
  // only if the run is paused now and has not paused or ended again since.
  async function isCurrentPause(runId: string, seq: number): Promise<boolean> {
    const run = await getRun(db, runId);
    if (!run || run.status === 'running') return false;
    return !(await hasRunEventAfter(db, conversationId, runId, seq, [...RUN_PAUSE_OR_END_EVENTS]));
  }

  async function fromLog(): Promise<string | null> {
    for (let reads = 0; ; reads++) {
      busMissed = false;
      const rows = firstPage ?? (await listEventsAfter(db, conversationId, lastSeq, pageSize));
      firstPage = undefined;
      const fresh = rows.filter((r) => r.seq > lastSeq);
      // Replayed text may have been discarded later in the log: looked up once, when text first comes.
      if (!discardsRead && fresh.some((r) => r.type === 'message.delta')) {
        discardsRead = true;
        for (const id of await listDiscardedMessageIds(db, conversationId, lastSeq)) discarded.add(id);
      }
      if (fresh.length) {
        const text = await deliver(fresh.map(toBusEvent));
        if (text || done) return text;
        continue; // a page of nothing but discarded text: read on
      }
      // Caught up. An event announced while that query ran is read on another pass (its row is
      // committed before its notification is sent); then the bus takes over. A reconnect of the bus
      // during the read may have lost an event committed after the read began: read once more.
      if (busMissed || (announced > lastSeq && reads < 2)) continue;
      source = 'live';
      if (!followed && !holding) done = true;
      return null;
    }
  }

  /** Queued live events in seq order; at a gap, stored ones are read from the log instead. */
  function fromBus(): { batch: BusEvent[]; gap: boolean } {
    const batch: BusEvent[] = [];
    let seq = lastSeq;
    const queued = live.splice(0);
    for (const [i, e] of queued.entries()) {
      if (e.seq === undefined || e.seq === seq + 1) {
        batch.push(e);
        seq = e.seq ?? seq;
      } else if (e.seq > seq + 1) {
        // Notifications can overtake each other, or be lost: the log is the order.
        source = 'log';
        live = queued.slice(i + 1).filter((q) => q.seq === undefined);
        return { batch, gap: true };
      }
    }
    return { batch, gap: false };
  }

  /** The next frames to send, or null when there is nothing to send now. */
  async function nextFrames(): Promise<string | null> {
    for (;;) {
      if (source === 'log') {
        const text = await fromLog();
        if (text !== null) return text;
      }
      const { batch, gap } = fromBus();
      const text = batch.length ? await deliver(batch) : '';
      if (text || done) return text;
      if (!gap) return null;
    }
  }

  /**
   * Each ping: looks at the log (a notification can be lost) and at the run (take-over, idle).
   * True when the log has events this stream has not sent.
   */
  async function tick(): Promise<boolean> {
    if (!followed) return holding ? holdTick() : false;
    // The run first, then the log (as at the open): a run's end is stored in the transaction that
    // ends it, so a run found ended has its end in the log by the second read. The other order
    // closed a stream with the end unsent when the run ended between the reads (one turn in
    // 600 at 200 conversations, `npm run bench`, Load).
    const run = await readActiveRun();
    const [newer] = await listEventsAfter(db, conversationId, lastSeq, 1);
    if (newer) {
      announced = Math.max(announced, newer.seq);
      source = 'log';
      live = [];
      return true;
    }
    // The run is no longer active and nothing after lastSeq says how it ended: nothing to wait for.
    if (run?.id !== followed.id) finish();
    else if (run.status !== 'running' && Date.now() - lastActivity >= (opts.pausedIdleMs ?? PAUSED_IDLE_MS)) finish(IDLE);
    return false;
  }

  /** A ping while held for a view's calls: the log first (a lost notification), then whether they still have not ended. */
  async function holdTick(): Promise<boolean> {
    const [newer] = await listEventsAfter(db, conversationId, lastSeq, 1);
    if (newer) {
      announced = Math.max(announced, newer.seq);
      source = 'log';
      live = [];
      return true;
    }
    holding = await opts.holdWhile!();
    if (!holding) finish();
    else if (Date.now() - lastActivity >= (opts.pausedIdleMs ?? PAUSED_IDLE_MS)) finish(IDLE);
    return false;
  }

  async function pull(): Promise<void> {
    try {
      while (!finished) {
        if (pingNow) {
          pingNow = false;
          return controller.enqueue(encoder.encode(encodeStreamEvent(STREAM_EVENTS.ping, {})));
        }
        const text = await nextFrames();
        if (finished) return;
        if (text) {
          controller.enqueue(encoder.encode(text));
          lastWriteAt = performance.now();
          if (done) finish();
          return;
        }
        if (done) return finish();
        if (tickDue) {
          tickDue = false;
          if ((await tick()) || finished) continue;
          return controller.enqueue(encoder.encode(encodeStreamEvent(STREAM_EVENTS.ping, {})));
        }
        await new Promise<void>((r) => (wake = r));
        // Only text in flight is gathered: a stored event (a call, a message, the run's end) goes at once.
        const since = performance.now() - lastWriteAt;
        const onlyDeltas = source === 'live' && live.every((e) => e.seq === undefined);
        if (onlyDeltas && since < gatherMs) await new Promise((r) => setTimeout(r, gatherMs - since));
      }
    } catch (err) {
      console.error('[sse] stream failed:', errorSummary(err));
      finish();
    }
  }

  return new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
        release = opts.register?.((closed) => finish(closed));
      },
      pull,
      cancel: () => finish(),
    },
    // Nothing is produced ahead of a read: the reader's pace is the stream's pace.
    { highWaterMark: 0 },
  );
}
