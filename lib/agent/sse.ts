import type { Db } from '@/db/connection';
import { listEventsAfter } from '@/db/queries/events';
import { getActiveRun } from '@/db/queries/runs';
import { errorSummary } from '@/lib/log-safe';

import type { EventBus } from './bus';
import { RUN_PAUSE_OR_END_EVENTS, type BusEvent } from './events';

export const SSE_HEADERS = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache, no-transform',
  'X-Accel-Buffering': 'no',
  Connection: 'keep-alive',
} as const;

export const PING_INTERVAL_MS = 15_000;

/** One SSE frame: `id:` only for stored events, so Last-Event-ID always names a stored seq. */
export function encodeSseEvent(e: BusEvent): string {
  const payload = JSON.stringify({ ...e.data, seq: e.seq ?? null, runId: e.runId });
  const lines = e.seq !== undefined ? [`id: ${e.seq}`] : [];
  lines.push(`event: ${e.type}`);
  // JSON.stringify escapes newlines, so one data line is enough.
  lines.push(`data: ${payload}`);
  return `${lines.join('\n')}\n\n`;
}

export const SSE_PING = ': ping\n\n';

/**
 * A conversation's events after `afterSeq`: the stored ones replayed, then live ones until the
 * active run pauses or ends. Null when there is nothing to replay and no run is active (the
 * route answers 204 so EventSource stops reconnecting).
 */
export async function openEventStream(opts: {
  db: Db;
  bus: EventBus;
  conversationId: string;
  afterSeq: number;
  signal?: AbortSignal;
  pingMs?: number;
  /** Called at each ping while waiting: the app uses it to take over a run whose lease lapsed. */
  onIdle?: () => Promise<unknown>;
}): Promise<ReadableStream<Uint8Array> | null> {
  const { db, bus, conversationId } = opts;
  const queue: BusEvent[] = [];
  let wake: (() => void) | undefined;
  const unsubscribe = await bus.subscribe(conversationId, (e) => {
    queue.push(e);
    wake?.();
  });
  const active = await getActiveRun(db, conversationId);
  const replay = await listAllEventsAfter(db, conversationId, opts.afterSeq);
  if (!active && replay.length === 0) {
    unsubscribe();
    return null;
  }

  const encoder = new TextEncoder();
  let closed = false;
  let timer: ReturnType<typeof setInterval> | undefined;
  const stop = () => {
    closed = true;
    clearInterval(timer);
    unsubscribe();
    wake?.();
  };
  opts.signal?.addEventListener('abort', stop, { once: true });

  return new ReadableStream<Uint8Array>({
    async start(controller) {
      const send = (text: string) => {
        if (!closed) controller.enqueue(encoder.encode(text));
      };
      let lastSeq = opts.afterSeq;
      // True once the active run has paused or ended: the stream is complete.
      const deliver = (e: BusEvent): boolean => {
        if (e.seq !== undefined) {
          if (e.seq <= lastSeq) return false;
          lastSeq = e.seq;
        }
        send(encodeSseEvent(e));
        return !!active && e.runId === active.id && e.seq !== undefined && RUN_PAUSE_OR_END_EVENTS.has(e.type);
      };

      // A run may have paused and resumed before: a replayed pause only ends the stream if the
      // run is still paused now, and only the last one counts.
      const pausedNow = active && active.status !== 'running';
      let lastPause = -1;
      replay.forEach((e, i) => {
        if (active && e.runId === active.id && RUN_PAUSE_OR_END_EVENTS.has(e.type)) lastPause = i;
      });
      let done = !active;
      replay.forEach((e, i) => {
        const final = deliver(e);
        const ended = e.type === 'run.completed' || e.type === 'run.failed' || e.type === 'run.cancelled';
        if (final && (ended || (pausedNow && i === lastPause))) done = true;
      });
      timer = setInterval(() => {
        send(SSE_PING);
        opts.onIdle?.().catch(() => {});
        // A notification can be lost (a dropped LISTEN connection); the log is the truth.
        listEventsAfter(db, conversationId, lastSeq, 1000)
          .then((rows) => {
            queue.push(...rows.map(toBusEvent));
            if (rows.length) wake?.();
          })
          .catch(() => {});
      }, opts.pingMs ?? PING_INTERVAL_MS);

      try {
        while (!done && !closed) {
          const next = queue.shift();
          if (!next) {
            await new Promise<void>((r) => (wake = r));
            wake = undefined;
            continue;
          }
          if (next.seq !== undefined && next.seq > lastSeq + 1) {
            // Notifications can overtake each other; the log is the order.
            for (const e of await listEventsAfter(db, conversationId, lastSeq, next.seq - lastSeq)) {
              done = deliver(toBusEvent(e)) || done;
            }
          }
          done = deliver(next) || done;
        }
      } catch (err) {
        console.error('[sse] stream failed:', errorSummary(err));
      } finally {
        stop();
        try {
          controller.close();
        } catch {
          // already closed by the client going away
        }
      }
    },
    cancel() {
      stop();
    },
  });
}

function toBusEvent(e: {
  conversationId: string;
  runId: string | null;
  type: string;
  seq: number;
  data: Record<string, unknown>;
}): BusEvent {
  return { conversationId: e.conversationId, runId: e.runId, type: e.type, seq: e.seq, data: e.data };
}

async function listAllEventsAfter(db: Db, conversationId: string, afterSeq: number): Promise<BusEvent[]> {
  const out: BusEvent[] = [];
  let after = afterSeq;
  for (;;) {
    const page = await listEventsAfter(db, conversationId, after, 1000);
    out.push(...page.map(toBusEvent));
    if (page.length < 1000) return out;
    after = page[page.length - 1]!.seq;
  }
}
