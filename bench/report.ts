import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import type { Summary } from './stats';

/**
 * What every bench section hands in: rows of one shape, printed as one table at the end and
 * written as JSON (`bench-results/bench.json`, git-ignored). Another section (the through-the-app
 * part in `bench/app/`) adds its own rows through the same `BenchReport`.
 */
export interface BenchRow {
  section: string;
  figure: string;
  /** The median where the figure was measured repeatedly, else the one value. */
  value: number;
  unit: string;
  p95?: number;
  /** How many measurements the median and p95 are of. */
  n?: number;
  /** The issue's target in words, e.g. "≤ 1.25×". */
  target?: string;
  met?: boolean;
  note?: string;
}

export interface BenchReport {
  add(...rows: BenchRow[]): void;
  /** A sentence printed under the table (what a figure means, a gap and its cause). */
  note(section: string, text: string): void;
  readonly rows: readonly BenchRow[];
}

/** A row from a summary of repeated measurements. */
export function summaryRow(section: string, figure: string, s: Summary, unit: string, extra: Partial<BenchRow> = {}): BenchRow {
  return { section, figure, value: s.median, p95: s.p95, n: s.n, unit, ...extra };
}

/** The target "at most `limit`" on the median, in words, and whether it is met. */
export function atMost(value: number, limit: number, unit: string): Pick<BenchRow, 'target' | 'met'> {
  return { target: `≤ ${limit}${unit === '×' ? '×' : ` ${unit}`}`, met: value <= limit };
}

/** The target "below `limit`" on the median. */
export function below(value: number, limit: number, unit: string): Pick<BenchRow, 'target' | 'met'> {
  return { target: `< ${limit} ${unit}`, met: value < limit };
}

export function createReport(): BenchReport & { notes: { section: string; text: string }[] } {
  const rows: BenchRow[] = [];
  const notes: { section: string; text: string }[] = [];
  return {
    rows,
    notes,
    add: (...more) => void rows.push(...more),
    note: (section, text) => void notes.push({ section, text }),
  };
}

export interface MachineInfo {
  cpus: number;
  cpuModel: string;
  memoryGiB: number;
  node: string;
  platform: string;
  /** 1-minute load average when the bench started: how busy the machine was with other work. */
  loadAtStart: number;
  databases: string[];
}

export function machineInfo(databases: string[]): MachineInfo {
  return {
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    platform: `${os.type()} ${os.release()}`,
    loadAtStart: os.loadavg()[0]!,
    databases,
  };
}

function format(n: number | undefined, unit: string): string {
  if (n === undefined || Number.isNaN(n)) return '';
  if (unit === '×') return `${n.toFixed(2)}×`;
  if (Math.abs(n) >= 1000) return Math.round(n).toLocaleString('en');
  if (Number.isInteger(n)) return String(n);
  return Math.abs(n) >= 100 ? n.toFixed(0) : Math.abs(n) >= 10 ? n.toFixed(1) : n.toFixed(2);
}

/** The rows as a Markdown table (what `npm run bench` prints, and what PERFORMANCE.md shows). */
export function renderTable(rows: readonly BenchRow[]): string {
  const lines = ['| section | figure | median | p95 | unit | n | target | met |', '| --- | --- | ---: | ---: | --- | ---: | --- | --- |'];
  for (const r of rows) {
    const met = r.met === undefined ? '' : r.met ? 'yes' : '**no**';
    const unit = r.unit === '×' ? 'ratio' : r.unit;
    const cells = [r.section, r.figure, format(r.value, r.unit), format(r.p95, r.unit), unit, r.n ?? '', r.target ?? '', met];
    lines.push(`| ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}

export function writeReport(
  report: ReturnType<typeof createReport>,
  meta: { machine: MachineInfo; startedAt: Date; settings: Record<string, unknown> },
  file = path.join(process.cwd(), 'bench-results', 'bench.json'),
): string {
  mkdirSync(path.dirname(file), { recursive: true });
  const body = { ...meta, finishedAt: new Date(), rows: report.rows, notes: report.notes };
  writeFileSync(file, `${JSON.stringify(body, null, 2)}\n`);
  return file;
}
