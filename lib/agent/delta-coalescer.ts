import type { EventSink } from './events';

export interface DeltaTarget {
  conversationId: string;
  runId: string;
  messageId: string;
}

/** How long streamed text may wait before it is stored, and how much of it one stored event holds at most. */
export const STORE_DELAY_MS = 1000;
export const STORE_MAX_CHARS = 2048;

/**
 * Text deltas go out live, gathered per block over a few milliseconds (one notification for what
 * arrived together, not one per token), and are stored coalesced: one event per block per second
 * of streaming or 2,048 characters (`STORE_DELAY_MS`, `STORE_MAX_CHARS`), so a step of a few
 * hundred words is two or three rows and statements, not one every 100 ms (issue 28: fifteen a
 * turn, each also rewriting the conversation's row and sending a NOTIFY). What that costs: a page
 * that reconnects mid-stream sees the text stored so far and the live text after it, and the
 * second in between once it is stored. 2,048 characters of text, even at 3 bytes each, keep the
 * event under the database bus's inline payload (./bus.ts).
 *
 * Each event carries `messageId`, `blockIndex` and the `offset` of its first character, so a
 * client that sees the same text live and then in a replay keeps it once. Text about to be
 * stored is not sent live as well: the stored event reaches every follower too.
 */
export class DeltaCoalescer {
  private pending = new Map<number, { offset: number; text: string; since: number }>();
  /** Blocks that are the model's thinking, not its answer: their deltas say so. */
  private thinkingBlocks = new Set<number>();
  private lengths = new Map<number, number>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** Text not yet sent live, per block (a suffix of what is pending storage). */
  private unsent = new Map<number, { offset: number; text: string }>();
  private liveTimer: ReturnType<typeof setTimeout> | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly sink: EventSink,
    private readonly target: DeltaTarget,
    private readonly opts: { maxDelayMs?: number; maxBytes?: number; liveDelayMs?: number } = {},
  ) {}

  push(blockIndex: number, text: string, kind: 'text' | 'thinking' = 'text'): void {
    if (!text) return;
    if (kind === 'thinking') this.thinkingBlocks.add(blockIndex);
    const offset = this.lengths.get(blockIndex) ?? 0;
    this.lengths.set(blockIndex, offset + text.length);
    const live = this.unsent.get(blockIndex);
    if (live) live.text += text;
    else this.unsent.set(blockIndex, { offset, text });
    this.liveTimer ??= setTimeout(() => this.sendLive(), this.opts.liveDelayMs ?? 5);

    const buf = this.pending.get(blockIndex);
    if (buf) buf.text += text;
    else this.pending.set(blockIndex, { offset, text, since: Date.now() });
    const size = this.pending.get(blockIndex)!.text.length;
    if (size >= (this.opts.maxBytes ?? STORE_MAX_CHARS)) this.flushInBackground();
    else this.timer ??= setTimeout(() => this.flushInBackground(), this.opts.maxDelayMs ?? STORE_DELAY_MS);
  }

  private sendLive(): void {
    this.liveTimer = undefined;
    const { conversationId, runId, messageId } = this.target;
    for (const [blockIndex, { offset, text }] of this.unsent)
      this.sink.live(conversationId, runId, 'message.delta', { messageId, blockIndex, offset, text, ...this.kindOf(blockIndex) });
    this.unsent.clear();
  }

  private dropUnsent(): void {
    if (this.liveTimer) clearTimeout(this.liveTimer);
    this.liveTimer = undefined;
    this.unsent.clear();
  }

  /**
   * A store nobody awaits now: a failure stays in `flushing`, where the step's own `flush` finds it
   * and fails the step — not an unhandled rejection that could end the process.
   */
  private flushInBackground(): void {
    this.flush().catch(() => {});
  }

  /** Stores whatever is buffered; resolves when it is stored (errors are the caller's). */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    // What is stored now is announced by its own event: no live copy of it is owed.
    this.dropUnsent();
    const batch = [...this.pending.entries()];
    this.pending.clear();
    const { conversationId, runId, messageId } = this.target;
    this.flushing = this.flushing.then(async () => {
      for (const [blockIndex, { offset, text }] of batch) {
        await this.sink.persist(conversationId, runId, 'message.delta', {
          messageId,
          blockIndex,
          offset,
          text,
          ...this.kindOf(blockIndex),
        });
      }
    });
    return this.flushing;
  }

  private kindOf(blockIndex: number): { kind?: 'thinking' } {
    return this.thinkingBlocks.has(blockIndex) ? { kind: 'thinking' } : {};
  }

  dispose(): void {
    this.dropUnsent();
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.pending.clear();
  }
}
