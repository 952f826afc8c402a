/**
 * Every answer about a shared conversation — the page, its JSON, its errors: never stored by a
 * browser or a proxy (a revoked link must stop showing at once), never sent on as a referrer (the
 * token is in the URL), never indexed.
 */
export const SHARED_HEADERS: Record<string, string> = {
  'Cache-Control': 'no-store',
  'Referrer-Policy': 'no-referrer',
  'X-Robots-Tag': 'noindex, nofollow',
};
