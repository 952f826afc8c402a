import { createAccessToken, createAccessTokenSchema, listAccessTokens } from '@/lib/account/access-tokens';
import { readJson } from '@/lib/http/json';
import { authed } from '@/lib/server/route';

/** The person's personal access tokens that still work (never a token or its hash). */
export const GET = authed(async ({ session, rt }) =>
  Response.json({ tokens: await listAccessTokens(rt.handle.db, session.user.id) }, { headers: { 'Cache-Control': 'no-store' } }),
);

/** `{ name, expiresIn? }` makes a token; the answer carries it this once (`201 { token, id, … }`). */
export const POST = authed(
  async ({ req, session, rt }) => {
    const input = await readJson(req, createAccessTokenSchema, { maxBytes: 4 * 1024 });
    return Response.json(await createAccessToken(rt.handle.db, session.user, input), {
      status: 201,
      headers: { 'Cache-Control': 'no-store' },
    });
  },
  { write: true },
);
