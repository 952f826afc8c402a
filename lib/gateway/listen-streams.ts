import { limitExceeded, limitsFor } from '@/lib/limits';
import { errorSummary } from '@/lib/log-safe';

/**
 * The `subscriptions/listen` streams MCP clients hold open on this instance (2026-07-28,
 * ./list-changed.ts): how many one client may hold (`mcpListenStreams`), and their end when the
 * client is revoked.
 *
 * A listen stream is one long HTTP request: authenticated when it opened, then nothing more is
 * asked of it. So that revoking a token or a connected client also ends what it already holds,
 * each stream keeps the request it came in with and checks its credential again (`stillValid`,
 * the endpoint's own bearer check, without recording a use):
 * - at once on this instance when the person revokes the client here, and on every other instance
 *   holding a stream of it through the app's event bus (`recheck`, from ./list-changed.ts);
 * - every `recheckMs` for every open stream, since a bus delivers at most once (and an expiry,
 *   or an account deleted, announces nothing).
 * A stream whose credential no longer holds is closed (its request's signal aborted: the SDK's
 * listen router tears it down). The database decides, never the notice: a notice only makes a
 * stream look sooner.
 *
 * Counted in this instance's memory, as `mcpConcurrentCalls` is: each instance holds its own.
 */

export const LISTEN_RECHECK_MS = 30_000;

export interface ListenStreamsDeps {
  /** The credential the request came in with still opens /mcp (not revoked, not expired, its account there). */
  stillValid(req: Request): Promise<boolean>;
  recheckMs?: number;
}

export type OpenedListen =
  | {
      ok: true;
      /** Aborted when the stream must end (revoked, or the client went away): hand it to the SDK as the request's. */
      signal: AbortSignal;
      /** The SDK's response: its stream is counted until it ends. */
      track(res: Response): Response;
      /** No response came back (the SDK threw): the stream is not counted any more. */
      release(): void;
    }
  | { ok: false; message: string };

export interface ListenStreams {
  open(client: { id: string; plan: string | null }, req: Request): OpenedListen;
  /** This client may have been revoked: its streams here check their credential again now. */
  recheck(clientId: string): Promise<void>;
  /** Open streams of this client on this instance. */
  count(clientId: string): number;
  close(): void;
}

interface Held {
  req: Request;
  abort: AbortController;
  release(): void;
}

export function createListenStreams(deps: ListenStreamsDeps): ListenStreams {
  const byClient = new Map<string, Set<Held>>();
  const recheckMs = deps.recheckMs ?? LISTEN_RECHECK_MS;
  let timer: ReturnType<typeof setInterval> | undefined;

  async function check(held: Held): Promise<void> {
    if (held.abort.signal.aborted) return;
    const valid = await deps.stillValid(held.req).catch((err: unknown) => {
      // The database could not say: the stream stays until the next check.
      console.error('[mcp] listen stream not rechecked:', errorSummary(err));
      return true;
    });
    if (!valid) held.abort.abort();
  }

  function sweep(): void {
    for (const set of byClient.values()) for (const held of set) void check(held);
  }

  function startTimer(): void {
    if (timer) return;
    timer = setInterval(sweep, recheckMs);
    timer.unref?.();
  }

  function stopTimerIfIdle(): void {
    if (byClient.size > 0 || !timer) return;
    clearInterval(timer);
    timer = undefined;
  }

  return {
    open(client, req) {
      const most = limitsFor(client.plan).mcpListenStreams;
      const set = byClient.get(client.id) ?? new Set<Held>();
      if (set.size >= most) {
        const advice = 'Close one of them (or reuse it: one stream carries every change notification) before opening another.';
        return { ok: false, message: limitExceeded('mcpListenStreams', most, advice, client.plan).message };
      }
      const abort = new AbortController();
      const signal = AbortSignal.any([req.signal, abort.signal]);
      let released = false;
      const held: Held = {
        req,
        abort,
        release() {
          if (released) return;
          released = true;
          set.delete(held);
          if (set.size === 0 && byClient.get(client.id) === set) byClient.delete(client.id);
          stopTimerIfIdle();
        },
      };
      set.add(held);
      byClient.set(client.id, set);
      startTimer();
      signal.addEventListener('abort', () => held.release(), { once: true });
      // A client gone before it was counted: its signal is aborted already and 'abort' never fires.
      if (signal.aborted) held.release();
      return {
        ok: true,
        signal,
        track(res) {
          if (!res.body) {
            held.release();
            return res;
          }
          // Counted until the stream ends, whichever side ends it: `cancel` when the reader gives up
          // (Next cancels the body of a response whose socket is gone, and never reads it to its end).
          // (`cancel` is in the Streams standard and Node 20, not yet in TypeScript's lib: a variable, not a literal.)
          const counted = { flush: () => held.release(), cancel: () => held.release() };
          const body = res.body.pipeThrough(new TransformStream<Uint8Array, Uint8Array>(counted));
          return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
        },
        release: () => held.release(),
      };
    },
    async recheck(clientId) {
      await Promise.all([...(byClient.get(clientId) ?? [])].map(check));
    },
    count: (clientId) => byClient.get(clientId)?.size ?? 0,
    close() {
      for (const set of [...byClient.values()]) for (const held of [...set]) held.abort.abort();
      byClient.clear();
      if (timer) clearInterval(timer);
      timer = undefined;
    },
  };
}
