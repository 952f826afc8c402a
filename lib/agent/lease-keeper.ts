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

/**
 * The leases of the runs this process drives, renewed together: one `UPDATE` per heartbeat for
 * all of them rather than one per run. At 50 turns in flight that was 50 statements a second
 * (more per turn the longer a loaded instance takes over each), now one.
 */
function createKeeper(db: Db, timing: LeaseTiming): Keeper {
  const held = new Map<string, (lease: Renewal) => void>();
  let timer: ReturnType<typeof setInterval> | undefined;
  // One renewal at a time: on a database slower than the heartbeat, the next waits for its tick.
  let renewing = false;

  async function renew() {
    if (renewing || held.size === 0) return;
    renewing = true;
    // The drives as they are now: one that lets go and holds again meanwhile (a run resumed on
    // this instance) is not told what this renewal found of the run before.
    const batch = [...held];
    try {
      const renewed = await renewRunLeases(
        db,
        batch.map(([id]) => id),
        timing.owner,
        new Date(Date.now() + timing.leaseMs),
      );
      const byId = new Map(renewed.map((r) => [r.id, r]));
      for (const [id, told] of batch) {
        if (held.get(id) !== told) continue;
        const row = byId.get(id);
        told(row ? { cancelRequestedAt: row.cancelRequestedAt } : null);
      }
    } catch (err) {
      console.error('[run] lease renewal failed:', errorSummary(err));
    } finally {
      renewing = false;
    }
  }

  return {
    hold(runId, onRenewed) {
      held.set(runId, onRenewed);
      timer ??= setInterval(() => void renew(), timing.heartbeatMs);
      return () => {
        if (held.get(runId) === onRenewed) held.delete(runId);
        if (held.size === 0 && timer) {
          clearInterval(timer);
          timer = undefined;
        }
      };
    },
  };
}

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
