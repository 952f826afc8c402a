import { randomBytes } from 'node:crypto';

import { applyEvent, indexToolCalls, type ChatEvent, type ChatState } from '@/app/_components/chat/chat-state';
import { RUN_END_EVENTS, RUN_PAUSE_EVENTS } from '@/lib/agent/events';
import type { ConversationView } from '@/lib/chat/views';
import { parseFrames, type Frame } from '@/test/sse-reader';

import type { AppProcess } from './app-process';

/**
 * A person's browser, without the browser: a signed-in cookie that works on every instance (one
 * database, one AUTH_SECRET), JSON calls with the page's same-origin headers, and event streams
 * read frame by frame and folded through the page's own reducer (`applyEvent`), so a test
 * asserts what the page would show.
 */

export interface Person {
  email: string;
  cookie: string;
}

/** Signs a new person up through the API and signs them in as the sign-in form does (Auth.js credentials). */
export async function signUp(app: AppProcess): Promise<Person> {
  const email = `faults-${randomBytes(5).toString('hex')}@example.test`;
  const password = 'correct horse battery staple';
  const created = await fetch(`${app.url}/api/account`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: app.url },
    body: JSON.stringify({ email, password, name: 'Fault Suite' }),
  });
  if (created.status !== 201) throw new Error(`sign-up answered ${created.status}: ${await created.text()}`);
  const csrf = await fetch(`${app.url}/api/auth/csrf`);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const jar = cookiesOf(csrf);
  const signIn = await fetch(`${app.url}/api/auth/callback/credentials`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: jar, origin: app.url },
    body: new URLSearchParams({ csrfToken, email, password, callbackUrl: '/' }),
  });
  const cookie = [jar, cookiesOf(signIn)].filter(Boolean).join('; ');
  if (signIn.status !== 302 || !/session-token=/.test(cookie)) throw new Error(`sign-in answered ${signIn.status} without a session`);
  return { email, cookie };
}

function cookiesOf(res: Response): string {
  return res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0]!)
    .join('; ');
}

/** One JSON call as the page makes it; throws with the body when the status is not the one expected. */
export async function call<T = Record<string, unknown>>(
  app: AppProcess,
  person: Person,
  method: string,
  path: string,
  body?: unknown,
  expected = method === 'GET' ? 200 : [200, 201, 202],
): Promise<T> {
  const res = await fetch(`${app.url}${path}`, {
    method,
    headers: { cookie: person.cookie, origin: app.url, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!([expected].flat() as number[]).includes(res.status))
    throw new Error(`${method} ${path} on ${app.name} answered ${res.status}: ${text}`);
  return (text ? JSON.parse(text) : {}) as T;
}

export const conversationOf = (app: AppProcess, person: Person, id: string) =>
  call<ConversationView>(app, person, 'GET', `/api/conversations/${id}`);

export async function newConversation(app: AppProcess, person: Person): Promise<string> {
  return (await call<{ id: string }>(app, person, 'POST', '/api/conversations', {})).id;
}

export async function sendMessage(app: AppProcess, person: Person, conversationId: string, text: string) {
  return call<{ runId: string; afterSeq: number }>(app, person, 'POST', `/api/conversations/${conversationId}/messages`, { text });
}

/** The page's state as it is built from the conversation's JSON (chat-view.tsx). */
export function pageState(view: ConversationView): ChatState {
  return {
    messages: view.messages,
    earlier: view.earlier,
    partials: [],
    toolCalls: indexToolCalls(view.toolCalls),
    activeRun: view.activeRun,
    lastRun: view.lastRun,
    lastSeq: view.lastSeq,
    progress: {},
    retrying: null,
  };
}

/** The text the page shows for a run: its stored answers, then what is still streaming. */
export function shownText(state: ChatState, runId: string): string {
  const stored = state.messages
    .filter((m) => m.runId === runId && m.role === 'assistant')
    .flatMap((m) => m.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])));
  const streaming = state.partials.filter((p) => p.runId === runId).flatMap((p) => p.blocks.filter((_, i) => !p.thinking.includes(i)));
  return [...stored, ...streaming].join('');
}

/**
 * Follows a conversation's events on one instance, as the page does: from `afterSeq`, again from
 * the last seq after a stream that ended at a pause, until the run ends, the stream breaks (the
 * instance died: `broken`), or `timeoutMs`. Every frame is kept, and the page's state after each.
 */
export class Follower {
  readonly frames: Frame[] = [];
  /** After each run event: the page's state and when it was reached, so a test can look at any moment. */
  readonly states: { frame: Frame; state: ChatState; at: number }[] = [];
  state: ChatState;
  ended = false;
  broken = false;
  lastSeq: number;
  private abort = new AbortController();
  readonly done: Promise<void>;

  constructor(
    private app: AppProcess,
    private person: Person,
    readonly conversationId: string,
    initial: ChatState,
    afterSeq: number,
    private timeoutMs = 45_000,
  ) {
    this.state = initial;
    this.lastSeq = afterSeq;
    this.done = this.run();
  }

  private async run(): Promise<void> {
    const deadline = Date.now() + this.timeoutMs;
    const timer = setTimeout(() => this.abort.abort(), this.timeoutMs);
    try {
      while (!this.ended && Date.now() < deadline) {
        const pausedAt = await this.readOnce();
        if (this.ended || this.broken) return;
        // A stream ends at a pause; the page opens the next one, which waits for the run to go on.
        if (!pausedAt) await new Promise((r) => setTimeout(r, 200));
      }
    } catch {
      // Stopped by the test or the deadline; anything else is the instance going away mid-stream.
      if (!this.abort.signal.aborted) this.broken = true;
    } finally {
      clearTimeout(timer);
    }
  }

  /** One stream to its end; true when its last run event was a pause. */
  private async readOnce(): Promise<boolean> {
    const res = await fetch(`${this.app.url}/api/conversations/${this.conversationId}/events?after=${this.lastSeq}`, {
      headers: { cookie: this.person.cookie, accept: 'text/event-stream' },
      signal: this.abort.signal,
    });
    if (res.status === 204) return false;
    if (!res.ok || !res.body) throw new Error(`events on ${this.app.name} answered ${res.status}`);
    const decoder = new TextDecoder();
    let buffer = '';
    let paused = false;
    for await (const chunk of res.body) {
      buffer += decoder.decode(chunk, { stream: true });
      const cut = buffer.lastIndexOf('\n\n');
      if (cut < 0) continue;
      const complete = buffer.slice(0, cut + 2);
      buffer = buffer.slice(cut + 2);
      for (const frame of parseFrames(complete)) {
        this.frames.push(frame);
        if (frame.event === 'ping' || frame.event === 'stream.closed') continue;
        if (typeof frame.data.seq === 'number') this.lastSeq = Math.max(this.lastSeq, frame.data.seq);
        this.state = applyEvent(this.state, { type: frame.event, data: frame.data } as ChatEvent);
        this.states.push({ frame, state: this.state, at: Date.now() });
        paused = RUN_PAUSE_EVENTS.has(frame.event);
        if (RUN_END_EVENTS.has(frame.event)) this.ended = true;
      }
    }
    return paused;
  }

  /** Waits until a frame matches (or the follower stops); returns it. */
  async waitFor(pred: (f: Frame) => boolean, label: string, timeoutMs = 20_000): Promise<Frame> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.frames.find(pred);
      if (found) return found;
      if (Date.now() > deadline || this.ended || this.broken)
        throw new Error(
          `${label}: not seen on ${this.app.name} (ended ${this.ended}, broken ${this.broken}); frames: ${summary(this.frames)}`,
        );
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  stop() {
    this.abort.abort();
  }

  /** Run events in order, without pings. */
  events(): Frame[] {
    return this.frames.filter((f) => f.event !== 'ping');
  }
}

export function follow(app: AppProcess, person: Person, conversationId: string, initial: ChatState, afterSeq: number, timeoutMs?: number) {
  return new Follower(app, person, conversationId, initial, afterSeq, timeoutMs);
}

function summary(frames: Frame[]): string {
  return frames
    .filter((f) => f.event !== 'ping')
    .map((f) => `${f.data.seq ?? '-'}:${f.event}`)
    .slice(-40)
    .join(' ');
}
