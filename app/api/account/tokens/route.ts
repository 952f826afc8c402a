import { createAccessToken, createAccessTokenSchema, listAccessTokens } from '@/lib/account/access-tokens';
import { resolveProfile } from '@/lib/gateway/profile';
import { readJson } from '@/lib/http/json';
import { authed } from '@/lib/server/route';

/** The person's personal access tokens that still work (never a token or its hash). */
export const GET = authed(async ({ session, rt }) =>
  Response.json({ tokens: await listAccessTokens(rt.handle.db, session.user.id) }, { headers: { 'Cache-Control': 'no-store' } }),
);

/**
 * `{ name, expiresIn?, tools? }` makes a token exposing `tools` (names as the chat gives them;
 * none by default) on /mcp; the answer carries the token this once (`201 { token, id, … }`).
 */
export const POST = authed(
  async ({ req, session, rt }) => {
    const { tools, ...input } = await readJson(req, createAccessTokenSchema, { maxBytes: 64 * 1024 });
    const profile = await resolveProfile({ db: rt.handle.db, host: rt.tools.host }, session.user, tools);
    return Response.json(await createAccessToken(rt.handle.db, session.user, { ...input, profile }), {
      status: 201,
      headers: { 'Cache-Control': 'no-store' },
    });
  },
  { write: true },
);
