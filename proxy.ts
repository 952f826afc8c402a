import { NextResponse, type NextRequest } from 'next/server';

import { AppError, errorResponse } from '@/lib/http/errors';
import { hostRefusal, requestedHost } from '@/lib/http/host';

/**
 * Every request (pages, API, Auth.js) first has its Host checked (lib/http/host.ts: the DNS
 * rebinding defence). Then pages get their CSP.
 *
 * A fresh nonce per page request and a CSP that only runs scripts carrying it (Next applies
 * the nonce to its own scripts when it finds it in the request's CSP header). An injected
 * `<script>` in anything a model or a tool wrote cannot run. `img-src` stays on our own origin:
 * a model-written image link must not carry data out.
 */
export function proxy(request: NextRequest) {
  const refusal = hostRefusal(requestedHost(request.headers));
  if (refusal) return refuse(request, refusal);
  if (!isPageRequest(request)) return NextResponse.next();

  const nonce = Buffer.from(crypto.randomUUID()).toString('base64');
  const isDev = process.env.NODE_ENV === 'development';
  const csp = [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${isDev ? " 'unsafe-eval'" : ''}`,
    // Workers (the code highlighter's, app/_components/markdown/highlight.ts) from our own origin only:
    // without this they fall back to script-src, whose 'strict-dynamic' lets a trusted script
    // start one from anywhere, a blob: URL included (e2e/api.spec.ts).
    "worker-src 'self'",
    // React sets inline styles; styles cannot run code, so inline ones are allowed.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    `connect-src 'self'${isDev ? ' ws: wss:' : ''}`,
    "frame-ancestors 'none'",
    "base-uri 'self'",
    // Forms post to our own routes only. The single sign-on buttons leave for the provider by a
    // navigation, not a form's redirect (app/_components/auth/sso-buttons.tsx says why).
    "form-action 'self'",
    "object-src 'none'",
  ].join('; ');

  const headers = new Headers(request.headers);
  headers.set('x-nonce', nonce);
  headers.set('Content-Security-Policy', csp);
  const response = NextResponse.next({ request: { headers } });
  response.headers.set('Content-Security-Policy', csp);
  return response;
}

/** 403 in the API's error shape for the API, plain text for pages. */
function refuse(request: NextRequest, message: string): Response {
  const error = new AppError('forbidden', 'host', message);
  if (request.nextUrl.pathname.startsWith('/api/')) return errorResponse(error);
  return new Response(message, { status: error.status, headers: { 'Content-Type': 'text/plain; charset=utf-8' } });
}

// API responses are JSON or SSE, never rendered as documents (next.config.mjs gives them the
// other headers). Prefetches get the CSP like any page: a browser's document prefetch
// (`Purpose: prefetch`, speculation rules) may later be shown as the page itself, and a
// router prefetch carries the page's payload; a response without the policy would run
// whatever a model or a tool wrote into it.
function isPageRequest(request: NextRequest): boolean {
  const path = request.nextUrl.pathname;
  // `/mcp` and the metadata beside it (lib/gateway) answer MCP clients in JSON or SSE, like the API.
  return !path.startsWith('/api/') && path !== '/mcp' && !path.startsWith('/.well-known/');
}

// Everything but static files, which hold no user data: a matcher condition (such as
// "no prefetch header") would be a way around the Host check, since a page can set headers.
export const config = {
  // The icons and the manifest in public/ are static files with nothing to protect (a phone
  // fetches them without a session).
  matcher: ['/((?!_next/static|_next/image|favicon.ico|icon.svg|icons/|apple-touch-icon|manifest.webmanifest).*)'],
};
