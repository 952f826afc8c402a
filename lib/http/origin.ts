import { readConfig, type Env } from '@/lib/config';

import { AppError } from './errors';

/**
 * The origin the app is served from: APP_URL / AUTH_URL when set (behind a proxy),
 * else what the request itself says.
 */
export function appOrigin(req: Request): string {
  // Blank counts as unset (the e2e config blanks both).
  const config = readConfig();
  const configured = config.APP_URL ?? config.AUTH_URL;
  if (configured) return new URL(configured).origin;
  const host = req.headers.get('host');
  const url = new URL(req.url);
  return host ? `${url.protocol}//${host}` : url.origin;
}

/**
 * Writes must come from our own pages: an `Origin` equal to ours (a missing one is refused),
 * so another site cannot make a signed-in browser write on its behalf.
 */
export function assertSameOrigin(req: Request): void {
  const origin = req.headers.get('origin');
  if (!origin) throw new AppError('forbidden', 'origin', 'Writes need an Origin header from this app.');
  if (origin !== appOrigin(req)) {
    throw new AppError('forbidden', 'origin', `Requests from ${origin} may not write here.`);
  }
}

/**
 * How many proxies of ours stand in front of the app and append to X-Forwarded-For
 * (`TRUSTED_PROXIES`, 0 to 10, default 0).
 */
export function trustedProxyHops(env?: Env): number {
  return readConfig(env).TRUSTED_PROXIES;
}

/**
 * The client's address for per-client rate limits, or null when it cannot be known. Entries of
 * X-Forwarded-For are whatever the client sent (`next start` passes a client's own header
 * through unchanged), except those our own proxies appended at the right end: with
 * TRUSTED_PROXIES = n, the n-th entry from the right was written by our outermost proxy and is
 * the address it saw. Without proxies (or with fewer entries than hops) nothing in the request
 * can be trusted, and only the global limits apply.
 */
export function clientKey(req: Request, env?: Env): string | null {
  const hops = trustedProxyHops(env);
  if (hops === 0) return null;
  const entries = (req.headers.get('x-forwarded-for') ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  return entries.length >= hops ? entries[entries.length - hops]! : null;
}
