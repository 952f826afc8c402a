/** At most `size` holders at once; the rest wait in arrival order. */
export class Semaphore {
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  /** The most holders there have been at once, and how many runs have started (tests read them). */
  peak = 0;
  started = 0;

  constructor(readonly size: number) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.size) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running += 1;
    this.peak = Math.max(this.peak, this.running);
    this.started += 1;
    try {
      return await work();
    } finally {
      // Hand the slot straight to the next waiter, so a newcomer cannot overtake it.
      const next = this.waiting.shift();
      if (next) next();
      else this.running -= 1;
    }
  }
}
