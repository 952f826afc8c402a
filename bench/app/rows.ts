import { below, summaryRow, type BenchRow } from '@/bench/report';
import { summarize } from '@/bench/stats';

export type { BenchRow };

/** A figure measured repeatedly: its median, p95 and n (bench/report.ts), with a "below" target if given. */
export function measured(section: string, figure: string, values: number[], unit: string, limit?: number): BenchRow {
  const s = summarize(values);
  return summaryRow(section, figure, s, unit, limit === undefined ? {} : below(s.median, limit, unit));
}

/** A figure measured once. */
export function single(section: string, figure: string, value: number, unit: string, extra: Partial<BenchRow> = {}): BenchRow {
  return { section, figure, value, unit, ...extra };
}
