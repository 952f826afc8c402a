import { OAuthProblem } from './errors';

/**
 * Where a client may have the browser sent back with a code (OAuth 2.1 §2.3.1, RFC 8252): `https`,
 * `http` to a loopback address only (a native client's local listener), or a private-use scheme
 * with a dot in it (`com.example.app:/cb`, `cursor://…`, RFC 8252 §7.1). Never a fragment,
 * credentials, or a scheme a browser would run (`javascript:`, `data:`, `file:`…).
 */

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);
const BROWSER_SCHEMES = new Set([
  'javascript:',
  'data:',
  'file:',
  'blob:',
  'about:',
  'vbscript:',
  'ftp:',
  'ws:',
  'wss:',
  'http:',
  'https:',
]);
export const REDIRECT_URIS_MAX = 10;
const URI_MAX = 2000;

/** Why this redirect URI cannot be registered, or null. */
export function redirectUriProblem(raw: unknown): string | null {
  if (typeof raw !== 'string' || !raw) return 'each redirect URI must be a non-empty string';
  if (raw.length > URI_MAX) return `a redirect URI must be at most ${URI_MAX} characters`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `"${raw.slice(0, 100)}" is not an absolute URI`;
  }
  if (url.hash || raw.includes('#')) return `"${raw}" has a fragment (#…), which redirect URIs may not have`;
  if (url.username || url.password) return `"${raw}" carries a user name or password`;
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:')
    return LOOPBACK_HOSTS.has(url.hostname)
      ? null
      : `"${raw}" uses http to a host that is not loopback (127.0.0.1, [::1] or localhost); use https`;
  return BROWSER_SCHEMES.has(url.protocol) ? `the scheme "${url.protocol}" is not allowed for redirect URIs` : null;
}

/** The client's redirect URIs checked (invalid_redirect_uri / invalid_client_metadata naming the problem), as given. */
export function checkRedirectUris(
  raw: unknown,
  code: 'invalid_redirect_uri' | 'invalid_client_metadata' = 'invalid_redirect_uri',
): string[] {
  if (!Array.isArray(raw) || raw.length === 0) throw new OAuthProblem(code, 'redirect_uris is required: a list of at least one URI.');
  if (raw.length > REDIRECT_URIS_MAX) throw new OAuthProblem(code, `redirect_uris may list at most ${REDIRECT_URIS_MAX} URIs.`);
  for (const uri of raw) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new OAuthProblem(code, `redirect_uris: ${problem}.`);
  }
  return raw as string[];
}
