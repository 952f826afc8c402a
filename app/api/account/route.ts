import { deleteAccount, deleteAccountSchema } from '@/lib/account/delete';
import { usesSecureCookies } from '@/lib/auth/secure-cookies';
import { clearedSessionCookies } from '@/lib/auth/session';
import { signUp, signUpSchema } from '@/lib/auth/signup';
import { readJson } from '@/lib/http/json';
import { clientKey } from '@/lib/http/origin';
import { authed, open } from '@/lib/server/route';

/** Sign up. The client then signs in through /api/auth with the same credentials. */
export const POST = open(
  async (req, rt) => {
    const input = await readJson(req, signUpSchema, { maxBytes: 8 * 1024 });
    const user = await signUp(rt.handle.db, input, { client: clientKey(req) });
    return Response.json({ id: user.id, email: user.email, name: user.name }, { status: 201 });
  },
  { write: true },
);

/** Delete the account and everything it owns: `{ confirm: "<the account email>" }`. */
export const DELETE = authed(
  async ({ req, session, rt }) => {
    await deleteAccount(rt.handle.db, session, await readJson(req, deleteAccountSchema, { maxBytes: 4 * 1024 }));
    const headers = new Headers();
    for (const cookie of clearedSessionCookies(usesSecureCookies(req))) headers.append('Set-Cookie', cookie);
    return Response.json({ deleted: true }, { headers });
  },
  { write: true },
);
