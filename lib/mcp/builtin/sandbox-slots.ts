/**
 * Who runs next in the sandbox. The workers are few and shared by everyone, so: at most
 * `capacity` runs at once, at most `maxRunning` per person, a short wait line per person and a
 * bounded one overall (past either, a run is refused at once instead of piling up), and a freed
 * slot goes to the waiting person with the fewest runs going, so one person's burst of parallel
 * calls cannot keep everyone else waiting.
 */

export interface SlotOwner {
  /** The person; runs of the same key share their limits. */
  key: string;
  maxRunning: number;
  maxWaiting: number;
}

/** The run was refused without waiting; `message` says why, for the model and the person. */
export class SandboxBusy extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SandboxBusy';
  }
}

/** The caller gave up (or the pool closed) while the run was waiting. */
export class SlotCancelled extends Error {
  constructor() {
    super('cancelled while waiting for a sandbox');
  }
}

interface Waiter {
  owner: SlotOwner;
  grant: (release: () => void) => void;
  cancel: () => void;
}

export class FairSlots {
  private active = 0;
  private readonly running = new Map<string, number>();
  private readonly waiters: Waiter[] = [];

  constructor(
    private readonly capacity: number,
    private readonly maxWaitingTotal: number,
  ) {}

  /** Resolves with the function that frees the slot; rejects with `SandboxBusy` or `SlotCancelled`. */
  acquire(owner: SlotOwner, signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(new SlotCancelled());
    const mine = this.runningOf(owner.key);
    if (this.active < this.capacity && mine < owner.maxRunning) return Promise.resolve(this.take(owner));
    const waiting = this.waiters.filter((w) => w.owner.key === owner.key).length;
    if (owner.maxRunning < 1 || waiting >= owner.maxWaiting) {
      return Promise.reject(
        new SandboxBusy(
          `SandboxBusyError: the sandbox is busy with this user's other runs (${mine} running, ${waiting} waiting; at most ` +
            `${owner.maxRunning} at once and ${owner.maxWaiting} waiting per person). Run fewer at once: wait for those ` +
            `results, then run this again.`,
        ),
      );
    }
    if (this.waiters.length >= this.maxWaitingTotal) {
      return Promise.reject(
        new SandboxBusy(
          `SandboxBusyError: the sandbox is busy with other people's runs (${this.waiters.length} waiting). Try again in a few ` +
            `seconds, or answer without running code.`,
        ),
      );
    }
    return new Promise((resolve, reject) => {
      const onAbort = () => waiter.cancel();
      const waiter: Waiter = {
        owner,
        grant: (release) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(release);
        },
        cancel: () => {
          signal?.removeEventListener('abort', onAbort);
          const i = this.waiters.indexOf(waiter);
          if (i >= 0) this.waiters.splice(i, 1);
          reject(new SlotCancelled());
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  /** Turns every waiting run away (the pool is closing). */
  cancelAll(): void {
    for (const waiter of [...this.waiters]) waiter.cancel();
  }

  get waiting(): number {
    return this.waiters.length;
  }

  private runningOf(key: string): number {
    return this.running.get(key) ?? 0;
  }

  private take(owner: SlotOwner): () => void {
    this.active++;
    this.running.set(owner.key, this.runningOf(owner.key) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.active--;
      const left = this.runningOf(owner.key) - 1;
      if (left > 0) this.running.set(owner.key, left);
      else this.running.delete(owner.key);
      this.dispatch();
    };
  }

  private dispatch(): void {
    while (this.active < this.capacity) {
      const next = this.pickNext();
      if (!next) return;
      this.waiters.splice(this.waiters.indexOf(next), 1);
      next.grant(this.take(next.owner));
    }
  }

  /** The oldest waiter among the people with the fewest runs going, skipping anyone at their cap. */
  private pickNext(): Waiter | undefined {
    let best: Waiter | undefined;
    for (const waiter of this.waiters) {
      const n = this.runningOf(waiter.owner.key);
      if (n >= waiter.owner.maxRunning) continue;
      if (!best || n < this.runningOf(best.owner.key)) best = waiter;
    }
    return best;
  }
}
