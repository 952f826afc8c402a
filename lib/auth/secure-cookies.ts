import { readConfig, type Env } from '@/lib/config';

/** The app's configured public URL (APP_URL, else AUTH_URL); blank counts as unset. */
export function configuredAppUrl(env?: Env): URL | null {
  const config = readConfig(env);
  const raw = config.APP_URL ?? config.AUTH_URL;
  return raw ? new URL(raw) : null;
}

/**
 * Whether the app is on https: its configured URL is, or the request came over it (directly or,
 * per X-Forwarded-Proto, through a proxy). Then only `__Secure-` / `__Host-` cookies count: a
 * plain-named cookie can be planted over http or by a sibling subdomain, so accepting one would
 * let an attacker sign a victim into the attacker's account. A client that claims https only
 * narrows what it is accepted with, so the header needs no trusted proxy.
 */
export function usesSecureCookies(req: { url?: string; headers: Headers }, env?: Env): boolean {
  if (configuredAppUrl(env)?.protocol === 'https:') return true;
  if (req.url && new URL(req.url).protocol === 'https:') return true;
  return req.headers.get('x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase() === 'https';
}
