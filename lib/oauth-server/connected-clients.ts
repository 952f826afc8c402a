import type { Db } from '@/db/connection';
import { listConnectedClients } from '@/db/queries/oauth-server';
import type { OAuthClientKind } from '@/db/vocabulary';

import { clientHost } from './clients';

/**
 * The Account page's "Connected clients": the MCP clients the person allowed through the consent
 * screen and has not revoked. Revoking one and changing what it exposes go through the token
 * routes (`DELETE` / `PATCH /api/account/tokens/:id`): a connection is an `access_tokens` row.
 */
export interface ConnectedClientView {
  id: string;
  name: string;
  /** The host it is known by (./clients.ts `clientHost`): its metadata document's, or where its codes went. */
  host: string;
  /** `metadata_document`: its identity was fetched from its host; `registered`: it described itself. */
  kind: OAuthClientKind;
  createdAt: string;
  lastUsedAt: string | null;
  tools: string[];
  /** A call that needs approval is also asked in the client's own window (MCP elicitation). */
  askInClient: boolean;
  /** The client sees the servers' own names while nothing clashes (lib/gateway/client-names.ts). */
  ownNames: boolean;
  /** The client also reads the exposed servers' resources and prompts (lib/gateway/content.ts). */
  content: boolean;
  /** Switchboard's own agent is offered as `switchboard_ask`. */
  agentTool: boolean;
}

export async function connectedClients(db: Db, userId: string): Promise<ConnectedClientView[]> {
  const rows = await listConnectedClients(db, userId);
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    host: clientHost({ clientId: r.clientId, kind: r.clientKind, redirectUris: r.redirectUris }),
    kind: r.clientKind,
    createdAt: r.createdAt.toISOString(),
    lastUsedAt: r.lastUsedAt?.toISOString() ?? null,
    tools: r.profile.tools.map((t) => t.name),
    askInClient: r.profile.askInClient === true,
    ownNames: r.profile.ownNames === true,
    content: r.profile.content === true,
    agentTool: r.profile.agentTool === true,
  }));
}
