import type { BenchUser } from './users';

/**
 * One turn through the app's HTTP API, as the page makes it: `POST /api/conversations/:id/messages`
 * (202 `{ runId, afterSeq }`), then `GET /api/conversations/:id/events?after=<afterSeq>` read as
 * SSE until `run.completed` (or another end). Writes carry the app's Origin, as the browser
 * sends it (lib/http/origin.ts). Times are `performance.now()` of this process, the clock the
 * bench model (./model.ts) stamps its calls with.
 */

export interface TurnTiming {
  startedAt: number;
  /** The 202 arrived. */
  acceptedAt: number;
  /** The first `message.delta` frame arrived (null if none did). */
  firstDeltaAt: number | null;
  endedAt: number;
  /** The event that ended the stream: run.completed, run.failed… */
  end: string;
  deltas: number;
}

export class TurnError extends Error {}

function writeHeaders(origin: string, user: BenchUser): Record<string, string> {
  return { 'Content-Type': 'application/json', Origin: origin, Cookie: user.cookie };
}

export async function createConversation(origin: string, user: BenchUser, title: string): Promise<string> {
  const res = await fetch(`${origin}/api/conversations`, {
    method: 'POST',
    headers: writeHeaders(origin, user),
    body: JSON.stringify({ title }),
  });
  if (res.status !== 201) throw new TurnError(`POST /api/conversations: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
}

const END_EVENTS = new Set([
  'run.completed',
  'run.failed',
  'run.cancelled',
  'run.awaiting_approval',
  'run.awaiting_input',
  'run.awaiting_sign_in',
]);

/** Reads SSE frames off the body until an end event; returns which one, the first delta's time and the delta count. */
async function followEvents(
  body: ReadableStream<Uint8Array>,
): Promise<{ end: string; firstDeltaAt: number | null; deltas: number; endedAt: number }> {
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let buffer = '';
  let firstDeltaAt: number | null = null;
  let deltas = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { end: 'stream ended without an end event', firstDeltaAt, deltas, endedAt: performance.now() };
      buffer += decoder.decode(value, { stream: true });
      let cut: number;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const frame = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const event = /^event: (.+)$/m.exec(frame)?.[1];
        if (event === 'message.delta') {
          deltas++;
          firstDeltaAt ??= performance.now();
        } else if (event && END_EVENTS.has(event)) {
          return { end: event, firstDeltaAt, deltas, endedAt: performance.now() };
        }
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

export async function turn(origin: string, user: BenchUser, conversationId: string, text: string): Promise<TurnTiming> {
  const startedAt = performance.now();
  const posted = await fetch(`${origin}/api/conversations/${conversationId}/messages`, {
    method: 'POST',
    headers: writeHeaders(origin, user),
    body: JSON.stringify({ text }),
  });
  if (posted.status !== 202) throw new TurnError(`POST …/messages: ${posted.status} ${await posted.text()}`);
  const { afterSeq } = (await posted.json()) as { runId: string; afterSeq: number };
  const acceptedAt = performance.now();
  const events = await fetch(`${origin}/api/conversations/${conversationId}/events?after=${afterSeq}`, {
    headers: { Cookie: user.cookie, Accept: 'text/event-stream' },
  });
  if (events.status !== 200 || !events.body) throw new TurnError(`GET …/events: ${events.status} ${await events.text()}`);
  const followed = await followEvents(events.body);
  if (followed.end !== 'run.completed') throw new TurnError(`the turn ended with ${followed.end}`);
  return { startedAt, acceptedAt, ...followed };
}
