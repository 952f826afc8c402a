import { describe, expect, it, vi } from 'vitest';

import { createListenStreams } from './listen-streams';

/** A listen stream is checked again on its own, without any notice: a bus delivers at most once. */
describe('listen streams', () => {
  const request = () => new Request('http://localhost/mcp', { method: 'POST' });
  const client = { id: 'c1', plan: null };

  it('closes a stream whose credential stopped holding at the next periodic check, and keeps it when the check fails', async () => {
    let valid: boolean | 'error' = true;
    const streams = createListenStreams({
      recheckMs: 20,
      stillValid: async () => {
        if (valid === 'error') throw new Error('database unreachable');
        return valid;
      },
    });
    const opened = streams.open(client, request());
    if (!opened.ok) throw new Error(opened.message);
    const quiet = vi.spyOn(console, 'error').mockImplementation(() => {});
    valid = 'error';
    await new Promise((r) => setTimeout(r, 80));
    expect(opened.signal.aborted).toBe(false);
    expect(quiet).toHaveBeenCalled();
    quiet.mockRestore();
    valid = false;
    await vi.waitFor(() => expect(opened.signal.aborted).toBe(true), { timeout: 1_000 });
    expect(streams.count(client.id)).toBe(0);
    streams.close();
  });

  it("counts a stream until its body ends or its request's signal aborts", async () => {
    const streams = createListenStreams({ stillValid: async () => true });
    const abort = new AbortController();
    const a = streams.open(client, new Request('http://localhost/mcp', { method: 'POST', signal: abort.signal }));
    const b = streams.open(client, request());
    if (!a.ok || !b.ok) throw new Error('refused');
    expect(streams.count(client.id)).toBe(2);
    abort.abort();
    expect(streams.count(client.id)).toBe(1);
    const res = b.track(new Response('data: ack\n\n'));
    await res.text();
    expect(streams.count(client.id)).toBe(0);
    streams.close();
  });
});

/** A stream whose client went away before it was counted, or whose body is cancelled unread, frees its slot. */
describe('listen streams whose client is gone', () => {
  const client = { id: 'c2', plan: null };

  it('does not count a stream whose request was aborted before it opened', () => {
    const streams = createListenStreams({ stillValid: async () => true });
    const abort = new AbortController();
    abort.abort();
    const opened = streams.open(client, new Request('http://localhost/mcp', { method: 'POST', signal: abort.signal }));
    if (!opened.ok) throw new Error(opened.message);
    expect(opened.signal.aborted).toBe(true);
    expect(streams.count(client.id)).toBe(0);
    streams.close();
  });

  it('frees the slot when the response body is cancelled, or when no response came back', async () => {
    const streams = createListenStreams({ stillValid: async () => true });
    const a = streams.open(client, new Request('http://localhost/mcp', { method: 'POST' }));
    const b = streams.open(client, new Request('http://localhost/mcp', { method: 'POST' }));
    if (!a.ok || !b.ok) throw new Error('refused');
    const endless = new ReadableStream<Uint8Array>({ pull: (ctl) => ctl.enqueue(new TextEncoder().encode(': ping\n\n')) });
    const res = a.track(new Response(endless));
    const reader = res.body!.getReader();
    await reader.read();
    await reader.cancel();
    await vi.waitFor(() => expect(streams.count(client.id)).toBe(1));
    b.release();
    expect(streams.count(client.id)).toBe(0);
    streams.close();
  });
});
