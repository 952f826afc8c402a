import { changePassword, changePasswordSchema } from '@/lib/account/change-password';
import { readJson } from '@/lib/http/json';
import { authed } from '@/lib/server/route';

/** Change password `{ currentPassword, newPassword }`; every other session of the user ends. */
export const POST = authed(
  async ({ req, session, rt }) => {
    const input = await readJson(req, changePasswordSchema, { maxBytes: 8 * 1024 });
    return Response.json(await changePassword(rt.handle.db, session, input));
  },
  { write: true },
);
