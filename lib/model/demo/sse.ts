import { encodeEvent, type WireEvent } from './wire';

// Plays a list of wire events out as a response body, pausing `delayMs`
// where an event asks for it (between words), so a host sees a real-looking
// stream. The body obeys the request's AbortSignal the way fetch does: on
// abort it errors with an AbortError (which the SDK treats as a user abort)
// and clears its timer, so an abandoned answer leaves nothing running.

export type PaceOptions = {
  delayMs: number;
  signal?: AbortSignal | null;
};

/** The error `[demo:fail-midstream]` breaks the stream with. */
export class DemoStreamBrokenError extends Error {
  constructor() {
    super('Demo model: the connection dropped in the middle of the answer ([demo:fail-midstream]).');
    this.name = 'DemoStreamBrokenError';
  }
}

export function abortErrorFrom(signal: AbortSignal): unknown {
  const reason: unknown = signal.reason;
  // Keep the caller's own AbortError; anything else becomes the DOMException fetch would throw.
  if (reason instanceof Error && reason.name === 'AbortError') return reason;
  return new DOMException('This operation was aborted', 'AbortError');
}

export function paceEvents(
  events: ReadonlyArray<WireEvent | { fail: true }>,
  { delayMs, signal }: PaceOptions,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let next = 0;
  let finished = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let wake: (() => void) | undefined;
  let onAbort: (() => void) | undefined;

  const finish = () => {
    finished = true;
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    wake?.();
    wake = undefined;
    if (signal && onAbort) signal.removeEventListener('abort', onAbort);
  };

  // Resolves after `ms`, or at once when the stream is finished meanwhile.
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      wake = resolve;
      timer = setTimeout(() => {
        timer = undefined;
        wake = undefined;
        resolve();
      }, ms);
    });

  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        if (!signal) return;
        onAbort = () => {
          if (finished) return;
          finish();
          controller.error(abortErrorFrom(signal));
        };
        if (signal.aborted) onAbort();
        else signal.addEventListener('abort', onAbort, { once: true });
      },

      async pull(controller) {
        // One event per pull: the consumer's reads drive the pace, so nothing
        // piles up in memory when a host reads slowly.
        if (finished) return;
        const item = events[next++];
        if (!item) {
          finish();
          controller.close();
          return;
        }
        if ('fail' in item) {
          finish();
          controller.error(new DemoStreamBrokenError());
          return;
        }
        if (item.pause && delayMs > 0) {
          await pause(delayMs);
          if (finished) return;
        }
        controller.enqueue(encoder.encode(encodeEvent(item)));
      },

      cancel() {
        // The reader gave up (e.g. the SDK stopped iterating): stop producing.
        finish();
      },
    },
    // Pull only when the consumer actually reads, so pacing is real pacing.
    { highWaterMark: 0 },
  );
}
