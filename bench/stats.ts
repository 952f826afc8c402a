/**
 * Order statistics for the bench, and the round-robin that measures variants side by side: each
 * round runs every variant once, in a new shuffled order, so drift on a shared 2-core machine
 * (another process waking up, GC, the JIT warming) hits all of them alike, and ratios are taken
 * per round (paired) rather than between two medians measured minutes apart.
 */

export interface Summary {
  median: number;
  p95: number;
  n: number;
}

export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  // Linear interpolation between the closest ranks (type 7, as numpy and R default to).
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (at - lo);
}

export function summarize(values: readonly number[]): Summary {
  return { median: quantile(values, 0.5), p95: quantile(values, 0.95), n: values.length };
}

/** One thing measured per round; `prepare` runs untimed right before `run` (a fresh conversation, say). */
export interface Variant<Extra = void> {
  name: string;
  prepare?: () => Promise<void>;
  run: () => Promise<Extra>;
}

export interface RoundResult<Extra> {
  /** Milliseconds per round, by variant name, in round order (index i is round i for every variant). */
  ms: Map<string, number[]>;
  /** What each run returned (e.g. statements counted), by variant name, in round order. */
  extra: Map<string, Extra[]>;
}

/** A small seeded PRNG (mulberry32): the shuffles are the same from run to run. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Runs `warmup` untimed rounds, then `rounds` timed ones; every variant once per round, the order
 * shuffled each round.
 */
export async function interleave<Extra>(
  variants: readonly Variant<Extra>[],
  opts: { rounds: number; warmup: number; seed?: number; onRound?: (done: number) => void },
): Promise<RoundResult<Extra>> {
  const random = seeded(opts.seed ?? 12);
  const ms = new Map(variants.map((v) => [v.name, [] as number[]]));
  const extra = new Map(variants.map((v) => [v.name, [] as Extra[]]));
  for (let round = 0; round < opts.warmup + opts.rounds; round++) {
    const order = [...variants];
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    for (const variant of order) {
      await variant.prepare?.();
      const t0 = performance.now();
      const out = await variant.run();
      const elapsed = performance.now() - t0;
      if (round < opts.warmup) continue;
      ms.get(variant.name)!.push(elapsed);
      extra.get(variant.name)!.push(out);
    }
    if (round >= opts.warmup) opts.onRound?.(round - opts.warmup + 1);
  }
  return { ms, extra };
}

/** Per-round ratios a[i] / b[i] (paired: both measured in the same round). */
export function pairedRatios(a: readonly number[], b: readonly number[]): number[] {
  return a.map((x, i) => x / b[i]!);
}

/** Per-round differences a[i] − b[i]. */
export function pairedDifferences(a: readonly number[], b: readonly number[]): number[] {
  return a.map((x, i) => x - b[i]!);
}
