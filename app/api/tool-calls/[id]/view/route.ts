import { toolCallView } from '@/lib/chat/tool-view';
import { AppError } from '@/lib/http/errors';
import { authed, requireUuid } from '@/lib/server/route';

type P = { id: string };

/**
 * A tool call's interactive view (MCP Apps) as its own HTML document, for the frame in the call's
 * card. Not `srcdoc`: a srcdoc frame inherits the page's CSP, whose nonce-only scripts would block
 * the view's inline ones. Served here, it has its own CSP (lib/mcp/app-views.ts), whose `sandbox`
 * makes it an opaque origin even when opened outside the frame, and only our pages may frame it.
 */
export const GET = authed<P>(async ({ req, rt, session, params }) => {
  // Browsers say what a request is for: a view is loaded by a frame, never as a page of its own.
  const dest = req.headers.get('sec-fetch-dest');
  if (dest && dest !== 'iframe') {
    throw new AppError('bad_request', 'view', `An interactive view opens only inside its tool card (this request was for "${dest}").`);
  }
  const view = await toolCallView(rt, session.user.id, requireUuid(params.id, 'tool call'));
  return new Response(view.html, {
    headers: {
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': view.csp,
      'Cache-Control': 'no-store',
      'Referrer-Policy': 'no-referrer',
      'Cross-Origin-Resource-Policy': 'same-origin',
    },
  });
});
