import type { AuthInfo } from '@modelcontextprotocol/server';

import type { StoredTaint, StoredTokenProfile } from '@/db/stored-json';
import { GATEWAY_CLIENT_KINDS, isOneOf, type GatewayClientKind } from '@/db/vocabulary';

/**
 * Who a request to `/mcp` acts for: the person, and the client they let in — a personal access
 * token or a connected OAuth client, named so the audit log can say which client made a call. Built by the endpoint from a
 * verified token and handed to the MCP server as `authInfo` (never read from anything the client
 * sends), so a client cannot change whose tools it reaches.
 */
export interface GatewayPrincipal {
  /** The app's origin as this request reached it (links in messages to the client). */
  origin: string;
  userId: string;
  plan: string | null;
  /**
   * The person's `users.tools_rev` as read with the token at this request: every change to their
   * servers bumps it, so the enabled servers read at the same value are reused (ToolHost.serversFor).
   */
  toolsRev: number;
  /**
   * The client: a personal access token (its name) or an OAuth client the person connected (the
   * client's name). `id` is the `access_tokens` row either way — the token, or the connection's
   * grant — which holds the profile, the taint, the last use and the revocation.
   */
  client: { kind: GatewayClientKind; id: string; name: string };
  /** Which tools the client may see and call: read from the token on each request, never from the client. */
  profile: StoredTokenProfile;
  /** The token's standing context: tainted once untrusted content went back to the client (./taint.ts). */
  tainted: StoredTaint | null;
}

export type { GatewayClientKind } from '@/db/vocabulary';

const PRINCIPAL = 'switchboardPrincipal';

export function principalAuthInfo(token: string, principal: GatewayPrincipal): AuthInfo {
  return { token, clientId: principal.client.id, scopes: [], extra: { [PRINCIPAL]: principal } };
}

/** The principal the endpoint put in `authInfo`, or null (a request that did not pass through it). */
export function principalOf(authInfo: AuthInfo | undefined): GatewayPrincipal | null {
  const p = authInfo?.extra?.[PRINCIPAL] as GatewayPrincipal | undefined;
  return p && typeof p.userId === 'string' && isOneOf(GATEWAY_CLIENT_KINDS, p.client?.kind) ? p : null;
}
