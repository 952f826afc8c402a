import type { Db } from '@/db/connection';
import { readHistory, type HistorySummaryRow, type StoredHistory } from '@/db/queries/history-summaries';
import type { MessageRow } from '@/db/queries/messages';

import { DriveFiles } from './file-blocks';
import { TokenGauge } from './gauge';

/**
 * The conversation's history as one drive of a run knows it: read once, at the drive's first
 * model step (the newest summary and the messages after it, one statement), then kept up to date
 * with what the drive itself writes — each step's answer and each tool phase's results — instead
 * of being read again every step. Another drive (after a pause or a take-over) reads it afresh:
 * nothing here outlives the drive or needs to agree with another instance.
 */
export class DriveHistory {
  private stored: StoredHistory | null = null;
  /** Tool results sent as stubs (by tool_use id, ./stubs.ts); within a drive the set only grows. */
  readonly stubbed = new Set<string>();
  private gauges = new Map<string, TokenGauge>();
  /** The files its messages refer to, read once for the whole drive (./file-blocks.ts). */
  readonly files = new DriveFiles();
  /** The window a "prompt is too long" answer named, when smaller than the one configured. */
  windowSaid: number | null = null;

  async load(db: Db, conversationId: string): Promise<StoredHistory> {
    this.stored ??= await readHistory(db, conversationId);
    return this.stored;
  }

  /** The estimate's calibration for the model this drive's steps use. */
  gauge(model: string): TokenGauge {
    let g = this.gauges.get(model);
    if (!g) this.gauges.set(model, (g = new TokenGauge(model)));
    return g;
  }

  /** A message this drive wrote (after its transaction committed). Before the first read there is nothing to add to. */
  append(message: MessageRow): void {
    this.stored?.messages.push(message);
  }

  /** A summary was written: the messages it covers are no longer sent. */
  summarized(summary: HistorySummaryRow): StoredHistory {
    const messages = (this.stored?.messages ?? []).filter((m) => m.seq > summary.throughSeq);
    this.stored = { summary, messages };
    return this.stored;
  }
}
