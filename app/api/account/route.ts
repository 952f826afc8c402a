import { signUp, signUpSchema } from '@/lib/auth/signup';
import { readJson } from '@/lib/http/json';
import { clientKey } from '@/lib/http/origin';
import { open } from '@/lib/server/route';

/** Sign up. The client then signs in through /api/auth with the same credentials. */
export const POST = open(
  async (req, rt) => {
    const input = await readJson(req, signUpSchema, { maxBytes: 8 * 1024 });
    const user = await signUp(rt.handle.db, input, { client: clientKey(req) });
    return Response.json({ id: user.id, email: user.email, name: user.name }, { status: 201 });
  },
  { write: true },
);
