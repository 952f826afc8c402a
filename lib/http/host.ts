import { readConfig, type Env } from '@/lib/config';

import { trustedProxyHops } from './origin';

const LOCAL_HOSTNAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * The host name a request was addressed to: Host, or X-Forwarded-Host when a trusted proxy
 * (TRUSTED_PROXIES) may have rewritten Host. Without a trusted proxy X-Forwarded-Host is
 * ignored: a page cannot set Host, but it can set any other header.
 */
export function requestedHost(headers: Headers, env?: Env): string | null {
  const forwarded = trustedProxyHops(env) > 0 ? headers.get('x-forwarded-host')?.split(',')[0]?.trim() : undefined;
  return forwarded || headers.get('host');
}

/**
 * Null when the app answers to `host`; otherwise the reason it does not. With APP_URL / AUTH_URL
 * set, only that URL's host; without, only localhost names (localhost, 127.0.0.1, [::1], any
 * port). This is what stops DNS rebinding: a page on evil.example whose name is made to resolve
 * to 127.0.0.1 is same-origin with itself, so its requests carry matching Origin and Host
 * headers and pass the Origin check — but their Host is evil.example.
 */
export function hostRefusal(host: string | null, env?: Env): string | null {
  const config = readConfig(env);
  const configured = config.APP_URL ?? config.AUTH_URL;
  const parsed = host ? parseHost(host) : null;
  if (configured) {
    const expected = new URL(configured);
    if (parsed && parsed.host === expected.host) return null;
    return `This server answers to ${expected.host} only (APP_URL), not to "${host ?? ''}". Open ${expected.origin} instead.`;
  }
  if (parsed && LOCAL_HOSTNAMES.has(parsed.hostname)) return null;
  return (
    `This server answers to localhost, 127.0.0.1 and [::1] only, not to "${host ?? ''}". ` +
    'To serve it under another name, set APP_URL to its public URL.'
  );
}

function parseHost(host: string): URL | null {
  try {
    return new URL(`http://${host}`);
  } catch {
    return null;
  }
}
