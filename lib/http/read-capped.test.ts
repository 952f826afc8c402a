import { describe, expect, it } from 'vitest';

import { readCapped } from './read-capped';

/** A stream of these chunks that records whether it was cancelled and how many chunks were pulled. */
function chunked(chunks: number[][]) {
  const seen = { pulled: 0, cancelled: false };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = chunks[seen.pulled++];
      if (next) controller.enqueue(new Uint8Array(next));
      else controller.close();
    },
    cancel() {
      seen.cancelled = true;
    },
  });
  return { stream, seen };
}

const tooLarge = () => new Error('too large');

describe('readCapped', () => {
  it('joins the chunks of a body within the cap, up to the cap itself', async () => {
    const { stream } = chunked([[1, 2], [3], [4, 5]]);
    expect([...(await readCapped(stream, 5, tooLarge))]).toEqual([1, 2, 3, 4, 5]);
  });

  it('reads no body as empty', async () => {
    expect((await readCapped(null, 5, tooLarge)).byteLength).toBe(0);
  });

  it('refuses a body past the cap while it streams and cancels the rest unread', async () => {
    const { stream, seen } = chunked([[1, 2, 3], [4, 5, 6], [7], [8]]);
    await expect(readCapped(stream, 5, tooLarge)).rejects.toThrow('too large');
    expect(seen.cancelled).toBe(true);
    expect(seen.pulled).toBeLessThan(4);
  });
});
