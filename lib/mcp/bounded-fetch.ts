import type { FetchLike } from '@modelcontextprotocol/client';

/**
 * A `fetch` wrapper that bounds how many bytes of one response body are read. Each response is
 * counted on its own; a streaming (SSE) response counts cumulatively over its whole life, so a
 * server cannot send an endless stream of progress notifications either. Past the bound the body
 * errors with `ResponseTooLarge` and the rest is never read.
 *
 * It only wraps: the URL guard (or any other policy) wraps the same `FetchLike` seam, in either
 * order, and the built-in in-process servers go through it like remote ones.
 */

/** Larger than any answer a tool should give (results past ~5 MB are cut anyway). */
export const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

export class ResponseTooLarge extends Error {
  constructor(readonly limitBytes: number) {
    super(`the response is larger than ${formatBytes(limitBytes)}`);
    this.name = 'ResponseTooLarge';
  }
}

export interface BoundOptions {
  maxBytes?: number;
  /**
   * Called once per response that went over the bound. The SDK reports a broken body in its own
   * words (or only as "stream ended"), so callers learn the reason here rather than by parsing them.
   */
  onExceeded?: (error: ResponseTooLarge) => void;
}

export function boundedFetch(base: FetchLike, opts: BoundOptions = {}): FetchLike {
  const maxBytes = opts.maxBytes ?? MAX_RESPONSE_BYTES;
  return async (url, init) => {
    const response = await base(url, init);
    if (!response.body) return response;
    const tooLarge = () => {
      const error = new ResponseTooLarge(maxBytes);
      opts.onExceeded?.(error);
      return error;
    };
    // A declared length over the bound is refused before a byte is read.
    const declared = Number(response.headers.get('content-length'));
    if (Number.isFinite(declared) && declared > maxBytes) {
      await response.body.cancel().catch(() => {});
      throw tooLarge();
    }
    let seen = 0;
    const counter = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        // Erroring the transform also cancels the source: the server's stream is not read on.
        if (seen > maxBytes) controller.error(tooLarge());
        else controller.enqueue(chunk);
      },
    });
    const bounded = new Response(response.body.pipeThrough(counter), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
    // A new Response forgets where it came from; the SSE transport resolves relative endpoints against it.
    Object.defineProperty(bounded, 'url', { value: response.url });
    return bounded;
  };
}

export function formatBytes(bytes: number): string {
  const mb = bytes / (1024 * 1024);
  if (mb >= 1) return `${Number(mb.toFixed(1))} MB`;
  const kb = bytes / 1024;
  return kb >= 1 ? `${Number(kb.toFixed(1))} KB` : `${bytes} bytes`;
}
