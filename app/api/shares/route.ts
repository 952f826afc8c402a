import { authed } from '@/lib/server/route';
import { listUserShares } from '@/lib/share/service';

/** All of the person's share links, across conversations, newest first. */
export const GET = authed(async ({ rt, session }) => Response.json({ links: await listUserShares(rt, session.user.id) }));
