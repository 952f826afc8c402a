import Anthropic from '@anthropic-ai/sdk';

/**
 * When a model call that failed before its first byte is tried again (issue 11, transient
 * failures). The SDK's own silent retries are off (`maxRetries: 0`, lib/model/client.ts): the
 * engine retries here instead, where it can tell the person (`run.retrying`) and where Stop
 * still ends the wait. A failure after the stream began is never retried: its partial text is
 * kept and the failure said in words, as before.
 */
export interface ModelRetrySettings {
  /** Retries after the first try. */
  maxRetries: number;
  /** The longest the engine waits in all for one step, the server's `retry-after` included. */
  maxWaitMs: number;
}

export const DEFAULT_MODEL_RETRY: ModelRetrySettings = { maxRetries: 3, maxWaitMs: 60_000 };

/** 429 (rate limited), 529 (overloaded), 5xx, and a connection that failed before any answer. */
export function isRetryableModelError(error: unknown): boolean {
  if (error instanceof Anthropic.APIUserAbortError) return false;
  if (error instanceof Anthropic.APIConnectionError) return true;
  if (!(error instanceof Anthropic.APIError)) return false;
  const status = error.status ?? 0;
  return status === 429 || status === 529 || status >= 500;
}

/**
 * How long to wait before retry number `attempt` (1, 2, …), or null to give up: not a transient
 * failure, out of retries, or the wait would pass `maxWaitMs` with what was waited already. The
 * server's `retry-after-ms` / `retry-after` (seconds or an HTTP date) wins; else 1 s, 2 s, 4 s …
 */
export function retryDelayMs(
  error: unknown,
  attempt: number,
  waitedMs: number,
  settings: ModelRetrySettings = DEFAULT_MODEL_RETRY,
  now = Date.now(),
): number | null {
  if (attempt > settings.maxRetries || !isRetryableModelError(error)) return null;
  const asked = serverDelayMs(error, now);
  const delay = asked ?? Math.min(1000 * 2 ** (attempt - 1), 16_000);
  return waitedMs + delay > settings.maxWaitMs ? null : delay;
}

function serverDelayMs(error: unknown, now: number): number | null {
  const headers = error instanceof Anthropic.APIError ? error.headers : undefined;
  const get = (name: string) => (headers instanceof Headers ? headers.get(name) : null);
  const ms = Number(get('retry-after-ms'));
  if (get('retry-after-ms') && Number.isFinite(ms) && ms >= 0) return Math.round(ms);
  const after = get('retry-after');
  if (!after) return null;
  const seconds = Number(after);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
  const at = Date.parse(after);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** What the person reads while the engine waits: "The model is busy (529); trying again in 4 s." */
export function retryingMessage(error: unknown, delayMs: number): string {
  const status = error instanceof Anthropic.APIError ? error.status : undefined;
  const why =
    status === 429
      ? 'The model’s rate limit was reached (429)'
      : status === 529
        ? 'The model is busy (529)'
        : status
          ? `The model service had an error (${status})`
          : 'The model service could not be reached';
  return `${why}; trying again in ${Math.max(1, Math.round(delayMs / 1000))} s.`;
}
