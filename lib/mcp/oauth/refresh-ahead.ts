import { listCredentialsExpiring } from '@/db/queries/oauth';
import { errorSummary } from '@/lib/log-safe';

import { refreshAhead } from './credentials';
import type { OAuthStore } from './types';

/**
 * The background refresh (issue 26: people's tokens "refreshed in the background, single-flight,
 * before they expire"): every `OAUTH_REFRESH_INTERVAL_MS` each instance refreshes the access
 * tokens that expire within the window, so a person's next call finds a fresh token and never
 * waits for a refresh or meets a sign-in card while their refresh token works. Each refresh is the
 * on-use one (`refreshAhead` → the same single flight, claimed on the row's `version` across
 * instances), so two instances ticking at once send one refresh request.
 */

/** Credentials refreshed at most per tick, soonest to expire first; the rest wait for the next tick (or their next use). */
export const REFRESH_BATCH = 50;
/** A token expiring within two ticks is refreshed, so none slips between them (and only past half its lifetime, db/queries/oauth.ts). */
export function refreshWindowMs(intervalMs: number): number {
  return 2 * intervalMs;
}

/** Only credentials some call used this recently are kept fresh: a dormant person's grant is left alone (renewed at their next use). */
export const RECENT_USE_MS = 60 * 60_000;

/** A credential that could not be refreshed is not tried again before this (doubling per failure, up to `MAX_BACKOFF_MS`). */
const FIRST_BACKOFF_MS = 60_000;
const MAX_BACKOFF_MS = 60 * 60_000;
const MAX_BACKED_OFF = 10_000;
/**
 * Per store (one per runtime, as the single flight's map), in this instance's memory: credentials that failed (provider
 * down, no refresh token, tokens that do not open here) and when to try them again, so they do not
 * take the head of every tick's batch. Lost on restart, which only means one more try.
 */
const backoffByStore = new WeakMap<OAuthStore, Map<string, { failures: number; until: number }>>();

function backoffOf(store: OAuthStore): Map<string, { failures: number; until: number }> {
  let map = backoffByStore.get(store);
  if (!map) backoffByStore.set(store, (map = new Map()));
  return map;
}

function backOff(map: Map<string, { failures: number; until: number }>, id: string, now: number): void {
  if (map.size >= MAX_BACKED_OFF) map.clear();
  const failures = (map.get(id)?.failures ?? 0) + 1;
  map.set(id, { failures, until: now + Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** (failures - 1)) });
}

export interface RefreshTickReport {
  /** Credentials looked at (expiring within the window). */
  checked: number;
  refreshed: number;
  /** The authorization server refused the grant (or the tokens no longer open): the person signs in again at their next call. */
  needsSignIn: string[];
  /** Could not be refreshed now (the authorization server unreachable, a database error); kept, tried again next tick. */
  failed: Array<{ credentialId: string; error: string }>;
  /** Left for the next tick: the tick's deadline came first. */
  deferred: number;
}

/**
 * One tick: refreshes what expires within `windowMs`, at most `limit`, starting none after
 * `deadlineMs` (each refresh is itself bounded, credentials.ts), so a slow authorization server
 * cannot hold the tick. Never throws: failures are in the report.
 */
export async function refreshExpiringCredentials(
  store: OAuthStore,
  opts: { windowMs: number; limit?: number; deadlineMs?: number },
): Promise<RefreshTickReport> {
  const report: RefreshTickReport = { checked: 0, refreshed: 0, needsSignIn: [], failed: [], deferred: 0 };
  const startedAt = Date.now();
  const now = store.now?.() ?? new Date();
  const backoff = backoffOf(store);
  const skip = [...backoff].filter(([, b]) => b.until > now.getTime()).map(([id]) => id);
  let due: { id: string }[];
  try {
    const window = { now, until: new Date(now.getTime() + opts.windowMs), usedSince: new Date(now.getTime() - RECENT_USE_MS) };
    due = await listCredentialsExpiring(store.db, window, opts.limit ?? REFRESH_BATCH, skip);
  } catch (err) {
    report.failed.push({ credentialId: '*', error: errorSummary(err) });
    return report;
  }
  report.checked = due.length;
  // One after another: a tick is background work, and a slow authorization server should not see a burst.
  for (const [i, { id }] of due.entries()) {
    if (opts.deadlineMs !== undefined && Date.now() - startedAt >= opts.deadlineMs) {
      report.deferred = due.length - i;
      break;
    }
    try {
      const outcome = await refreshAhead(store, id, opts.windowMs);
      if (outcome === 'refreshed') report.refreshed++;
      else if (outcome === 'needs_sign_in') report.needsSignIn.push(id);
      if (outcome === 'refreshed' || outcome === 'fresh') backoff.delete(id);
      else backOff(backoff, id, Date.now());
    } catch (err) {
      report.failed.push({ credentialId: id, error: errorSummary(err) });
      backOff(backoff, id, Date.now());
    }
  }
  return report;
}

/**
 * Starts the periodic refresh for this process (lib/server/runtime.ts). A tick still running when
 * the next is due is not doubled; the timer does not keep the process alive. Returns its stop.
 */
export function startBackgroundRefresh(store: () => Promise<OAuthStore>, intervalMs: number): () => void {
  let running = false;
  const windowMs = refreshWindowMs(intervalMs);
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    void store()
      .then((s) => refreshExpiringCredentials(s, { windowMs, deadlineMs: intervalMs }))
      .then(logReport, (err: unknown) => console.error('[oauth] background refresh could not start:', errorSummary(err)))
      .finally(() => (running = false));
  }, intervalMs);
  timer.unref?.();
  return () => clearInterval(timer);
}

function logReport(r: RefreshTickReport): void {
  if (r.failed.length || r.needsSignIn.length) console.warn('[oauth] background refresh', JSON.stringify(r));
  else if (r.refreshed) console.log(`[oauth] background refresh: ${r.refreshed} of ${r.checked} refreshed`);
}
