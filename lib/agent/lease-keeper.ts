import type { Db } from '@/db/connection';
import { renewRunLeases } from '@/db/queries/runs';
import { errorSummary } from '@/lib/log-safe';
import { processSingleton } from '@/lib/process-singleton';

/** What a renewal found: null when the lease was lost (taken over, or the run left `running`). */
export type Renewal = { cancelRequestedAt: Date | null } | null;

export interface LeaseTiming {
  /** This process: the lease owner. */
  owner: string;
  heartbeatMs: number;
  leaseMs: number;
}

interface Keeper {
  hold(runId: string, onRenewed: (lease: Renewal) => void): () => void;
}

/** A held run: whom to tell, and until when its lease is known to be ours (the last renewal that landed). */
interface Held {
  told: (lease: Renewal) => void;
  confirmedUntil: number;
}

/**
 * The leases of the runs this process drives, renewed together: one `UPDATE` per heartbeat for
 * all of them rather than one per run. At 50 turns in flight that was 50 statements a second
 * (more per turn the longer a loaded instance takes over each), now one.
 *
 * One statement for all means one slow or stuck statement (a dead pooled connection, a lock wait)
 * would hold every run's renewal: so a renewal is waited for at most a few heartbeats before the
 * next is sent, and a run whose lease is not known to be renewed by a heartbeat before it lapses
 * is told it is lost — its drive stops before another instance may take it over, never after.
 */
function createKeeper(db: Db, timing: LeaseTiming): Keeper {
  const held = new Map<string, Held>();
  let timer: ReturnType<typeof setInterval> | undefined;
  // One renewal waited for at a time; one slower than RENEWAL_WAIT_HEARTBEATS heartbeats is left to finish on its own.
  let renewing = false;

  function tick() {
    const now = Date.now();
    for (const [id, run] of held) {
      if (now < run.confirmedUntil - timing.heartbeatMs) continue;
      // Not renewed in time (the database slow or away): the lease may lapse before the next tick.
      held.delete(id);
      console.error(`[run ${id}] lease not renewed in time: this instance stops driving it`);
      run.told(null);
    }
    void renew();
  }

  async function renew() {
    if (renewing || held.size === 0) return;
    renewing = true;
    // The drives as they are now: one that lets go and holds again meanwhile (a run resumed on
    // this instance) is not told what this renewal found of the run before.
    const batch = [...held];
    const sentAt = Date.now();
    const landed = renewRunLeases(
      db,
      batch.map(([id]) => id),
      timing.owner,
      new Date(sentAt + timing.leaseMs),
    ).then(
      (renewed) => {
        const byId = new Map(renewed.map((r) => [r.id, r]));
        for (const [id, run] of batch) {
          if (held.get(id) !== run) continue;
          const row = byId.get(id);
          if (row) run.confirmedUntil = Math.max(run.confirmedUntil, sentAt + timing.leaseMs);
          run.told(row ? { cancelRequestedAt: row.cancelRequestedAt } : null);
        }
      },
      (err: unknown) => console.error('[run] lease renewal failed:', errorSummary(err)),
    );
    let waited: ReturnType<typeof setTimeout> | undefined;
    const limit = new Promise<void>((resolve) => (waited = setTimeout(resolve, timing.heartbeatMs * RENEWAL_WAIT_HEARTBEATS)));
    try {
      await Promise.race([landed, limit]);
    } finally {
      clearTimeout(waited);
      renewing = false;
    }
  }

  return {
    hold(runId, onRenewed) {
      // The drive holds the lease it just claimed or renewed: good for a lease's length from about now.
      held.set(runId, { told: onRenewed, confirmedUntil: Date.now() + timing.leaseMs });
      timer ??= setInterval(tick, timing.heartbeatMs);
      return () => {
        if (held.get(runId)?.told === onRenewed) held.delete(runId);
        if (held.size === 0 && timer) {
          clearInterval(timer);
          timer = undefined;
        }
      };
    },
  };
}

/** How many heartbeats a renewal is waited for before the next is sent (it may be stuck on a dead connection). */
const RENEWAL_WAIT_HEARTBEATS = 3;

const keepers = processSingleton('leaseKeepers', () => new WeakMap<Db, Map<string, Keeper>>());

/**
 * Holds a run's lease while its drive lasts: renewed every `heartbeatMs` with the other runs of
 * the same database, owner and timing, `onRenewed` told each time (a Stop requested, or the lease
 * lost). Returns the function that lets it go.
 */
export function holdLease(db: Db, timing: LeaseTiming, runId: string, onRenewed: (lease: Renewal) => void): () => void {
  let byTiming = keepers.get(db);
  if (!byTiming) keepers.set(db, (byTiming = new Map()));
  const key = `${timing.owner} ${timing.heartbeatMs} ${timing.leaseMs}`;
  let keeper = byTiming.get(key);
  if (!keeper) byTiming.set(key, (keeper = createKeeper(db, timing)));
  return keeper.hold(runId, onRenewed);
}
