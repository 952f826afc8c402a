import { listSessions } from '@/lib/account/sessions';
import { authed } from '@/lib/server/route';

/** The user's signed-in sessions; `current` marks this one. */
export const GET = authed(async ({ session, rt }) => Response.json({ sessions: await listSessions(rt.handle.db, session) }));
