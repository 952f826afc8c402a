import { endOtherSessions } from '@/lib/account/sessions';
import { authed } from '@/lib/server/route';

/** Sign out everywhere else. */
export const DELETE = authed(async ({ session, rt }) => Response.json(await endOtherSessions(rt.handle.db, session)), { write: true });
