import { NextResponse, type NextRequest } from 'next/server';

/**
 * A fresh nonce per page request and a CSP that only runs scripts carrying it (Next applies
 * the nonce to its own scripts when it finds it in the request's CSP header). An injected
 * `<script>` in anything a model or a tool wrote cannot run. `img-src` stays on our own origin:
 * a model-written image link must not carry data out.
 */
export function proxy(request: NextRequest) {
  const nonce = Buffer.from(crypto.randomUUID()).toString('base64');
  const isDev = process.env.NODE_ENV === 'development';
  const csp = [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${isDev ? " 'unsafe-eval'" : ''}`,
    // React sets inline styles; styles cannot run code, so inline ones are allowed.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    `connect-src 'self'${isDev ? ' ws: wss:' : ''}`,
    "frame-ancestors 'none'",
    "base-uri 'self'",
    // Sign-in forms post to our Auth.js routes, which redirect to GitHub / Google when configured.
    "form-action 'self' https://github.com https://accounts.google.com",
    "object-src 'none'",
  ].join('; ');

  const headers = new Headers(request.headers);
  headers.set('x-nonce', nonce);
  headers.set('Content-Security-Policy', csp);
  const response = NextResponse.next({ request: { headers } });
  response.headers.set('Content-Security-Policy', csp);
  return response;
}

export const config = {
  matcher: [
    {
      // Pages only: not the API, Next's assets, or the icons and manifest in public/ (static files
      // with nothing to protect; a phone fetches them without a session).
      source: '/((?!api|_next/static|_next/image|favicon.ico|icon.svg|icons/|apple-touch-icon|manifest.webmanifest).*)',
      missing: [
        { type: 'header', key: 'next-router-prefetch' },
        { type: 'header', key: 'purpose', value: 'prefetch' },
      ],
    },
  ],
};
