import { connectedClients } from '@/lib/oauth-server/connected-clients';
import { authed } from '@/lib/server/route';

/**
 * The MCP clients the person connected through the consent screen and has not revoked. Revoking
 * one and changing its tools: `DELETE` / `PATCH /api/account/tokens/:id` (a connection is a token row).
 */
export const GET = authed(async ({ session, rt }) =>
  Response.json({ clients: await connectedClients(rt.handle.db, session.user.id) }, { headers: { 'Cache-Control': 'no-store' } }),
);
