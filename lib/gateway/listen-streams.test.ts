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
