import { createMcpHandler, type AuthInfo, type McpHttpHandler, type Server } from '@modelcontextprotocol/server';

import type { Db } from '@/db/connection';
import { authenticateBearer } from '@/lib/auth/access-tokens';
import { AppError, errorResponse } from '@/lib/http/errors';
import { appOrigin } from '@/lib/http/origin';
import { errorSummary } from '@/lib/log-safe';

import { LIMIT_REACHED } from './call';
import { declareListChanged, type ClientListenBus } from './list-changed';
import type { ListenStreams } from './listen-streams';
import { unauthorizedResponse } from './metadata';
import { principalAuthInfo, principalOf, type GatewayPrincipal } from './principal';
import { jsonRpcError, methodOf, readMessage, requestIdOf } from './request-body';

/**
 * `/mcp`: Switchboard's own MCP endpoint (issue 25). One `createMcpHandler` serves both protocol
 * revisions — 2026-07-28 per request, 2025-11-25 through the SDK's stateless fallback — and
 * builds a server per HTTP request for the principal the request authenticated as, so nothing
 * of one person's tools is held between requests or shared with another's.
 *
 * In front of it, in this order:
 * 1. `Origin`, when present, must be the app's own (the MCP transport spec's DNS-rebinding rule;
 *    MCP clients outside a browser send none). Same-origin checks of the API do not apply: a
 *    bearer token is not sent by a browser on its own, so there is no cross-site request to forge.
 * 2. `Authorization: Bearer …`, a personal access token (`sbp_`) or the access token of a client
 *    connected through Switchboard's authorization server (`sba_`, lib/oauth-server). Cookies are never read here: a
 *    browser session must not become a way in for another site's page.
 */

export interface McpEndpoint {
  serve(req: Request): Promise<Response>;
  /** The person changed this client's profile: its open listen streams hear list_changed (./list-changed.ts). */
  profileChanged(clientId: string): void;
  /**
   * The person revoked this client or one of its tokens: its open listen streams, on any
   * instance, check their credential again and close when it no longer holds (./listen-streams.ts).
   */
  clientRevoked(clientId: string): void;
  close(): Promise<void>;
}

export function createMcpEndpoint(
  db: Db,
  buildServer: (principal: GatewayPrincipal) => Server,
  /** Where list-changed notifications go, and the listen streams held here; without them, no stream is served. */
  listening?: { bus: ClientListenBus; streams: ListenStreams },
): McpEndpoint {
  const listen = listening?.bus;
  const handler: McpHttpHandler = createMcpHandler(
    ({ authInfo, era }) => {
      const principal = principalOf(authInfo);
      // The endpoint sets it on every request it passes on; without it nothing is served.
      if (!principal) throw new Error('no principal: /mcp requests pass through the endpoint first');
      const server = buildServer(principal);
      if (listen) declareListChanged(server, era);
      return server;
    },
    { onerror: (err) => console.error('[mcp] handler error:', errorSummary(err)), ...(listen && { bus: listen }) },
  );

  async function serve(req: Request): Promise<Response> {
    try {
      const origin = appOrigin(req);
      const from = req.headers.get('origin');
      if (from !== null && from !== origin) {
        throw new AppError('forbidden', 'origin', `Requests from ${from} may not use this MCP endpoint; MCP clients send no Origin.`);
      }
      const auth = await authenticateBearer(db, req);
      if (!auth.ok) return unauthorizedResponse(origin, auth.reason, auth.message);
      const principal: GatewayPrincipal = {
        origin,
        userId: auth.user.id,
        plan: auth.user.plan,
        toolsRev: auth.user.toolsRev,
        client: { kind: auth.token.kind, id: auth.token.id, name: auth.token.name },
        profile: auth.token.profile,
        tainted: auth.token.tainted,
      };
      const read = await readMessage(req);
      if (read.kind === 'refused') return read.response;
      const authInfo = principalAuthInfo(auth.token.id, principal);
      const serveIt = () =>
        read.kind === 'parsed' ? serveParsed(read.body, req, principal, authInfo) : handler.fetch(read.request, { authInfo });
      return await (listen ? listen.within(principal.client.id, serveIt) : serveIt());
    } catch (err) {
      return errorResponse(err);
    }
  }

  /** A request whose JSON body the endpoint read (./request-body.ts): a listen stream is counted and may be closed. */
  async function serveParsed(body: unknown, req: Request, principal: GatewayPrincipal, authInfo: AuthInfo): Promise<Response> {
    const streams = listening?.streams;
    if (methodOf(body) !== 'subscriptions/listen' || !streams) return handler.fetch(req, { authInfo, parsedBody: body });
    const opened = streams.open({ id: principal.client.id, plan: principal.plan }, req);
    if (!opened.ok) return jsonRpcError(429, LIMIT_REACHED, opened.message, requestIdOf(body));
    // The same request with a signal the endpoint can abort too; its body was read already (the SDK takes parsedBody).
    const request = new Request(req.url, { method: req.method, headers: req.headers, signal: opened.signal });
    let res: Response | undefined;
    try {
      res = await handler.fetch(request, { authInfo, parsedBody: body });
    } finally {
      // The SDK threw: no stream will end to release the slot.
      if (!res) opened.release();
    }
    return opened.track(res);
  }

  return {
    serve,
    profileChanged: (clientId) => listen?.profileChanged(clientId),
    clientRevoked: (clientId) => listen?.clientRevoked(clientId),
    async close() {
      listening?.streams.close();
      await handler.close();
    },
  };
}
