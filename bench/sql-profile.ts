import type { TimedStatement } from './databases';

/** What one measured operation (a turn, a call) cost in SQL. */
export interface SqlCost {
  statements: number;
  timeline: TimedStatement[];
  sqlMs: number;
}

/** Where the SQL time goes: statements grouped by their text, per operation, costliest first. */
export function sqlProfile(costs: SqlCost[], top: number): string {
  const groups = new Map<string, { count: number; ms: number }>();
  for (const cost of costs) {
    for (const { sql, ms } of cost.timeline) {
      const key = sql.replace(/\s+/g, ' ').trim().slice(0, 70);
      const g = groups.get(key) ?? { count: 0, ms: 0 };
      g.count++;
      g.ms += ms;
      groups.set(key, g);
    }
  }
  return [...groups]
    .sort((a, b) => b[1].ms - a[1].ms)
    .slice(0, top)
    .map(([sql, g]) => `\`${sql}…\` ×${(g.count / costs.length).toFixed(1)} ${(g.ms / costs.length).toFixed(1)} ms`)
    .join('; ');
}
