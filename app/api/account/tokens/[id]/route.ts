import { revokeAccessToken, updateAccessToken, updateAccessTokenSchema } from '@/lib/account/access-tokens';
import { resolveProfile } from '@/lib/gateway/profile';
import { readJson } from '@/lib/http/json';
import { authed, requireUuid } from '@/lib/server/route';

type P = { id: string };

/**
 * `{ name?, tools?, askInClient?, ownNames?, content?, agentTool? }`: renames the token, replaces the
 * tools it exposes on /mcp (the whole list; a client using it sees the change at its next request),
 * lets a call that needs approval be asked in the client's own window too, shows the client the
 * servers' own names, lets it read the exposed servers' resources and prompts, and/or offers
 * Switchboard's own agent as `switchboard_ask` (all off by default). Only a signed-in session may:
 * a token cannot change what it reaches.
 */
export const PATCH = authed<P>(
  async ({ req, params, session, rt }) => {
    const id = requireUuid(params.id, 'access_token');
    const input = await readJson(req, updateAccessTokenSchema, { maxBytes: 64 * 1024 });
    const tools =
      input.tools === undefined
        ? undefined
        : (await resolveProfile({ db: rt.handle.db, host: rt.tools.host }, session.user, input.tools)).tools;
    const profile = {
      ...(tools && { tools }),
      ...(input.askInClient !== undefined && { askInClient: input.askInClient }),
      ...(input.ownNames !== undefined && { ownNames: input.ownNames }),
      ...(input.content !== undefined && { content: input.content }),
      ...(input.agentTool !== undefined && { agentTool: input.agentTool }),
    };
    const change = { ...(input.name !== undefined && { name: input.name }), ...(Object.keys(profile).length > 0 && { profile }) };
    const updated = await updateAccessToken(rt.handle.db, session.user.id, id, change);
    // A client holding a listen stream hears that its lists changed (lib/gateway/list-changed.ts).
    if (input.tools !== undefined || input.ownNames !== undefined || input.content !== undefined || input.agentTool !== undefined) {
      rt.mcp.profileChanged(id);
    }
    return Response.json(updated);
  },
  { write: true },
);

/**
 * Revokes one of the person's tokens (or connected clients) at once; another person's token is 404.
 * Its next request is refused, and the listen streams it holds open are closed (lib/gateway/listen-streams.ts).
 */
export const DELETE = authed<P>(
  async ({ params, session, rt }) => {
    const id = requireUuid(params.id, 'access_token');
    const revoked = await revokeAccessToken(rt.handle.db, session.user.id, id);
    rt.mcp.clientRevoked(id);
    return Response.json(revoked);
  },
  { write: true },
);
