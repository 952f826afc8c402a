import dns, { type LookupAddress, type LookupOptions } from 'node:dns';
import ipaddr from 'ipaddr.js';
import { Agent, fetch as undiciFetch } from 'undici';

import type { FetchLike } from './connection';

/**
 * The URL guard (SSRF): every outbound request to a server a person added — MCP endpoints, OAuth
 * metadata, token, JWKS and registration endpoints, and every redirect — goes through
 * `createGuardedFetch`. Rules:
 * - `https:` only; `http:` only to loopback, and loopback only when `allowLoopback` is on
 *   (`MCP_ALLOW_LOOPBACK=true`, for tests: it would expose the machine's own services);
 * - every address is checked against private, loopback, link-local, CGNAT, metadata, multicast
 *   and reserved ranges (IPv6 unique-local and IPv4-mapped forms included) — literal addresses
 *   before connecting, names **at connect time** through the connection's `lookup` hook, so a
 *   DNS answer that changes between a check and the connection (rebinding) cannot slip through;
 * - redirects are followed by hand and re-checked, and a redirect to another origin loses the
 *   credentials and custom headers;
 * - connecting and waiting for headers are bounded in time (the body size is bounded by
 *   `boundedFetch` around this).
 */

export interface UrlGuardOptions {
  /** Allow loopback addresses (and plain http to them). Tests only. */
  allowLoopback?: boolean;
}

export class UrlRefused extends Error {
  constructor(
    readonly url: string,
    readonly reason: string,
  ) {
    super(`Switchboard refused to connect to ${safeOrigin(url)}: ${reason}.`);
  }
}

function safeOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'that address';
  }
}

const RANGE_WORDS: Record<string, string> = {
  private: 'a private network address',
  loopback: 'this machine (loopback)',
  linkLocal: 'a link-local address (cloud metadata services live there)',
  carrierGradeNat: 'a carrier-grade NAT address',
  uniqueLocal: 'a private IPv6 address (unique local)',
  unspecified: 'an unspecified address',
  broadcast: 'a broadcast address',
  multicast: 'a multicast address',
};

/** Why an IP address may not be reached, in words; null when it may. */
export function addressProblem(address: string, opts: UrlGuardOptions = {}): string | null {
  let ip: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    // process() turns IPv4-mapped IPv6 (::ffff:10.0.0.1) into the IPv4 address it stands for.
    ip = ipaddr.process(address);
  } catch {
    return `"${address}" is not an IP address`;
  }
  const range = ip.range();
  if (range === 'loopback' && opts.allowLoopback) return null;
  if (range === 'unicast') {
    // IPv4-compatible IPv6 (::a.b.c.d, deprecated) is "unicast" to ipaddr.js; nothing public lives there.
    const v4compatible = ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).parts.slice(0, 6).every((p) => p === 0);
    return v4compatible ? 'it resolves to a reserved IPv6 address (::/96)' : null;
  }
  return `it resolves to ${RANGE_WORDS[range] ?? `a reserved address (${range})`}`;
}

/**
 * What the person is told when a host name resolves to an address the guard refuses — the same
 * words as for a name that does not resolve at all (lib/mcp/failures.ts), so a refusal cannot be
 * used to find out which internal names exist.
 */
export const NOT_PUBLIC = 'its host name does not resolve to a public internet address';

const LOOPBACK_NAMES = new Set(['localhost', 'localhost.localdomain']);

/** The checks that need no DNS: scheme, credentials in the URL, literal addresses. Null when fine so far. */
export function urlProblem(raw: string | URL, opts: UrlGuardOptions = {}): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'it is not a valid URL';
  }
  if (url.username || url.password) return 'the URL carries a user name or password; use header credentials instead';
  // The WHATWG parser has already turned decimal, octal and hex IPv4 forms into dotted quads.
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const literal = ipaddr.isValid(host);
  const loopbackName = LOOPBACK_NAMES.has(host.toLowerCase()) || host.toLowerCase().endsWith('.localhost');
  if (loopbackName && !opts.allowLoopback) return 'it is this machine (localhost)';
  if (literal) {
    const problem = addressProblem(host, opts);
    if (problem) return problem.replace(/^it resolves to /, 'it is ');
  }
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && opts.allowLoopback && (loopbackName || (literal && ipaddr.process(host).range() === 'loopback'))) {
    return null;
  }
  return url.protocol === 'http:' ? 'only https is allowed' : `the scheme "${url.protocol.replace(/:$/, '')}" is not allowed (only https)`;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
type Resolver = (hostname: string, options: LookupOptions, callback: LookupCallback) => void;

/**
 * A `lookup` for the connection: resolves as usual, then refuses the connection if ANY address
 * the name resolves to is not allowed — the check happens on the very answer used to connect.
 */
export function guardedLookup(opts: UrlGuardOptions = {}, resolve: Resolver = dns.lookup as unknown as Resolver): Resolver {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '');
      const list = addresses as LookupAddress[];
      for (const a of list) {
        const problem = addressProblem(a.address, opts);
        if (problem) {
          // Only the log learns what the name resolved to: told to the person (the refusal reaches
          // the servers page and the model), it would say which internal names exist and where.
          console.warn(`[url-guard] refused ${hostname}: ${problem} (${a.address})`);
          const refusal = Object.assign(new UrlRefused(`https://${hostname}/`, NOT_PUBLIC), { code: 'EURLREFUSED' });
          return callback(refusal, '');
        }
      }
      if (options.all) return callback(null, list);
      const first = list[0];
      if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '');
      callback(null, first.address, first.family);
    });
  };
}

/**
 * Every address a name resolves to must be allowed; the reason in detail. For the log and
 * tests, never for the person (they are told `NOT_PUBLIC`); connections check at connect time.
 */
export async function hostProblem(
  host: string,
  opts: UrlGuardOptions = {},
  resolve: Resolver = dns.lookup as unknown as Resolver,
): Promise<string | null> {
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  if (ipaddr.isValid(bare)) return addressProblem(bare, opts);
  return new Promise((done) => {
    resolve(host, { all: true }, (err, addresses) => {
      if (err) return done(`${host} does not resolve (${err.code ?? err.message})`);
      for (const a of addresses as LookupAddress[]) {
        const problem = addressProblem(a.address, opts);
        if (problem) return done(`${host} ${problem}`);
      }
      done(null);
    });
  });
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Headers that may follow a redirect to another origin; everything else (credentials, custom headers) is dropped. */
const CROSS_ORIGIN_SAFE_HEADERS = new Set(['accept', 'accept-language', 'content-type', 'user-agent', 'mcp-protocol-version']);

export interface GuardedFetchOptions extends UrlGuardOptions {
  maxRedirects?: number;
  /** Connecting, and waiting for response headers, each at most this long. */
  connectTimeoutMs?: number;
  headersTimeoutMs?: number;
  /** For tests: resolve names without DNS. */
  resolve?: Resolver;
  /** For tests: what sends each hop (default: undici's fetch through the guarded connection). */
  transport?: (url: URL, init: RequestInit & { redirect: 'manual' }) => Promise<Response>;
}

/** A fetch that only reaches what the guard allows, at every hop. */
export function createGuardedFetch(opts: GuardedFetchOptions = {}): FetchLike {
  const agent = new Agent({
    connect: { lookup: guardedLookup(opts, opts.resolve), timeout: opts.connectTimeoutMs ?? 10_000 },
    headersTimeout: opts.headersTimeoutMs ?? 30_000,
    // No body timeout: MCP responses may be long-lived event streams; the SDK times requests.
    bodyTimeout: 0,
    // An idle connection is kept only briefly: reused after the server's own keep-alive (often
    // 5 s) ran out, it is cut under the next request ("other side closed"), and a POST is not
    // retried. One MCP operation's requests follow each other closely, so they still share it.
    keepAliveTimeout: 1_000,
    keepAliveMaxTimeout: 1_000,
  });
  const maxRedirects = opts.maxRedirects ?? 5;
  const send =
    opts.transport ??
    (async (url: URL, init: RequestInit & { redirect: 'manual' }) =>
      (await undiciFetch(url, { ...init, body: init.body as never, dispatcher: agent } as never)) as unknown as Response);

  return async (input, init) => {
    let url = new URL(input.toString());
    let method = (init?.method ?? 'GET').toUpperCase();
    let body = init?.body;
    const headers = new Headers(init?.headers);
    for (let hop = 0; ; hop++) {
      const problem = urlProblem(url, opts);
      if (problem) throw new UrlRefused(url.toString(), problem);
      const response = await send(url, { method, headers, body, signal: init?.signal, redirect: 'manual' });
      const location = response.headers.get('location');
      // `redirect: 'manual'` asks for the redirect itself (e.g. an authorization answer read from `Location`).
      if (!REDIRECTS.has(response.status) || !location || init?.redirect === 'manual') return response;
      await response.body?.cancel().catch(() => {});
      if (hop >= maxRedirects) throw new UrlRefused(url.toString(), `it redirected more than ${maxRedirects} times`);
      const next = new URL(location, url);
      if (next.origin !== url.origin) {
        for (const name of [...headers.keys()]) if (!CROSS_ORIGIN_SAFE_HEADERS.has(name)) headers.delete(name);
      }
      // As browsers do: 303 (and 301/302 after a POST) continue as a GET without a body.
      if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === 'POST')) {
        method = 'GET';
        body = undefined;
        headers.delete('content-type');
      }
      url = next;
    }
  };
}
