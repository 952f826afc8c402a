import { resetPassword, resetPasswordSchema } from '@/lib/account/password-reset';
import { knownDeviceSetCookie, readKnownDevices } from '@/lib/auth/known-device';
import { usesSecureCookies } from '@/lib/auth/secure-cookies';
import { readJson } from '@/lib/http/json';
import { open } from '@/lib/server/route';

/**
 * Use a one-time reset link `{ token, password }`. The browser that used it is remembered as a
 * known device, so a throttle someone else ran up on the email does not hold its owner back.
 */
export const POST = open(
  async (req, rt) => {
    const userId = await resetPassword(rt.handle.db, await readJson(req, resetPasswordSchema, { maxBytes: 8 * 1024 }));
    const secure = usesSecureCookies(req);
    const known = readKnownDevices(req.headers.get('cookie'), rt.secret, { secure });
    const cookie = knownDeviceSetCookie(known, userId, rt.secret, { secure });
    return Response.json({ reset: true }, { headers: { 'Set-Cookie': cookie } });
  },
  { write: true },
);
