export interface Frame {
  id?: number;
  event: string;
  data: Record<string, unknown>;
}

/** SSE frames out of text, in order; comments (`: …`) and `retry:` lines are left out. */
export function parseFrames(text: string): Frame[] {
  return text
    .split('\n\n')
    .filter((f) => f.trim() && !f.startsWith(':'))
    .map((f) => {
      const lines = Object.fromEntries(f.split('\n').map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 2)]));
      return { id: lines.id ? Number(lines.id) : undefined, event: lines.event!, data: JSON.parse(lines.data!) };
    });
}

/** Every frame of a stream, to its end. */
export async function readFrames(stream: ReadableStream<Uint8Array>): Promise<Frame[]> {
  return parseFrames(await new Response(stream).text());
}

/**
 * Reads a stream one chunk at a time, as a slow client would, with a timeout per chunk so a test
 * fails instead of hanging when a stream stays open.
 */
export function sseReader(stream: ReadableStream<Uint8Array>) {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let pending: Promise<ReadableStreamReadResult<Uint8Array>> | undefined;
  let buffer = '';

  async function next(ms = 3000): Promise<Frame[] | 'end' | 'timeout'> {
    pending ??= reader.read();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), ms)));
    const result = await Promise.race([pending, timeout]);
    clearTimeout(timer);
    if (result === 'timeout') return 'timeout';
    pending = undefined;
    if (result.done) return 'end';
    buffer += decoder.decode(result.value, { stream: true });
    const cut = buffer.lastIndexOf('\n\n');
    if (cut < 0) return [];
    const complete = buffer.slice(0, cut + 2);
    buffer = buffer.slice(cut + 2);
    return parseFrames(complete);
  }

  return {
    next,
    /** Frames until the stream ends (`ended`), or until `ms` have passed. */
    async rest(ms = 3000): Promise<{ frames: Frame[]; ended: boolean }> {
      const frames: Frame[] = [];
      const deadline = Date.now() + ms;
      for (;;) {
        const got = await next(Math.max(1, deadline - Date.now()));
        if (got === 'end' || got === 'timeout') return { frames, ended: got === 'end' };
        frames.push(...got);
      }
    },
    cancel: () => reader.cancel().catch(() => {}),
  };
}
