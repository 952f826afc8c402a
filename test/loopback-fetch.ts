import type { FetchLike } from '@/lib/mcp/connection';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * The remote-server fetch for tests: real HTTP, but only to loopback. The app refuses remote
 * servers without a guarded fetch; tests hand this one over, and it refuses anything that is not
 * loopback so that no test can open a connection to another machine even by mistake.
 */
export const loopbackFetch: FetchLike = (url, init) => {
  const host = new URL(url.toString()).hostname;
  if (!LOOPBACK.has(host)) return Promise.reject(new Error(`tests may only connect to loopback, not ${host}`));
  return fetch(url, init);
};
