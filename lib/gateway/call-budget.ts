import { LRUCache } from 'lru-cache';

import type { Db } from '@/db/connection';
import { hitRateLimitBy } from '@/db/queries/rate-limits';

/**
 * `mcpCallsPerMinute`: one MCP client's calls in a fixed minute, counted in `rate_limits` (key
 * `mcp-calls:<client id>`) so that every instance counts against the same number. Counting one
 * call per statement put a write, and on Postgres its commit's WAL flush, on every call's path
 * (issue 25's latency row); an instance therefore takes a few calls of the minute at once — a
 * tenth of the limit, at most `MAX_BATCH` — and hands them out from memory until they are used or
 * the minute ends.
 *
 * What holds: no more than the limit runs in a minute on all instances together (every call run
 * was counted in the table before it ran). What an instance took and did not use is lost for that
 * minute, so with several instances serving one client in turns it may be refused a few calls
 * early (at most a batch less one per instance). Parallel calls of one client on an instance wait
 * for the one batch being taken rather than each taking its own. A small limit (10 or under) is
 * counted call by call as before.
 */

export const MCP_CALL_WINDOW_MS = 60_000;
const MAX_BATCH = 10;
/** Clients whose taken calls are held at once on an instance; one pushed out only takes a new batch. */
const MAX_CLIENTS = 10_000;

export interface CallBudget {
  /** Takes one of this client's calls of the minute; false when `max` have been taken (by any instance). */
  take(clientId: string, max: number, now?: Date): Promise<boolean>;
}

export function batchFor(max: number): number {
  return Math.max(1, Math.min(MAX_BATCH, Math.ceil(max / 10)));
}

interface Batch {
  until: number;
  left: number;
}

export function createCallBudget(db: Db): CallBudget {
  const held = new LRUCache<string, Batch>({ max: MAX_CLIENTS });
  // One batch taken at a time per client: parallel calls each taking their own would count them all
  // in the table while only the last one's leftovers were kept, and the minute ran out after a few calls.
  const taking = new Map<string, Promise<Batch | null>>();

  function takeBatch(clientId: string, max: number, now: Date): Promise<Batch | null> {
    const batch = batchFor(max);
    const taken = hitRateLimitBy(db, `mcp-calls:${clientId}`, MCP_CALL_WINDOW_MS, batch, now)
      .then(({ count, windowStart }) => {
        // What this batch got of the minute: the count before it was `count - batch`.
        const granted = Math.max(0, Math.min(batch, max - (count - batch)));
        if (granted === 0) {
          held.delete(clientId);
          return null;
        }
        const mine = { until: windowStart.getTime() + MCP_CALL_WINDOW_MS, left: granted };
        held.set(clientId, mine);
        return mine;
      })
      .finally(() => {
        if (taking.get(clientId) === taken) taking.delete(clientId);
      });
    taking.set(clientId, taken);
    return taken;
  }

  return {
    async take(clientId, max, now = new Date()) {
      // Each turn either hands out a held call, or waits for a batch that either grants or refuses.
      for (;;) {
        const mine = held.get(clientId);
        if (mine && mine.until > now.getTime() && mine.left > 0) {
          mine.left -= 1;
          return true;
        }
        const batch = await (taking.get(clientId) ?? takeBatch(clientId, max, now));
        if (!batch) return false;
        if (batch.until > now.getTime() && batch.left > 0) {
          batch.left -= 1;
          return true;
        }
      }
    },
  };
}
