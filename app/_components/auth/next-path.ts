// Where the sign-in page sends a person afterwards (`?next=`): only a path of this app. Anything
// that could leave it — another origin, `//host`, a scheme, a backslash browsers read as a slash —
// is ignored, so a crafted link cannot turn sign-in into a redirect to somewhere else.

const MAX_NEXT_LENGTH = 2000;
const BASE = 'http://switchboard.invalid';

/** The same-origin path to go to after signing in, or null (then the app's home). */
export function safeNextPath(raw: unknown): string | null {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > MAX_NEXT_LENGTH) return null;
  if (!raw.startsWith('/') || raw.startsWith('//') || raw.includes('\\') || /[\u0000-\u001f\u007f]/.test(raw)) return null;
  let url: URL;
  try {
    url = new URL(raw, BASE);
  } catch {
    return null;
  }
  if (url.origin !== BASE) return null;
  // An API path is no page to land on (and Auth.js's own routes would act on the GET).
  if (url.pathname === '/api' || url.pathname.startsWith('/api/')) return null;
  return `${url.pathname}${url.search}${url.hash}`;
}

/** `path` with `?next=` kept, for the links between sign-in and sign-up. */
export function withNext(path: string, next: string | null): string {
  return next ? `${path}?next=${encodeURIComponent(next)}` : path;
}
