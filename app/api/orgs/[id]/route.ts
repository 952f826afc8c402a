import { readJson } from '@/lib/http/json';
import { orgSettingsSchema, updateOrgSettings } from '@/lib/orgs/orgs';
import { authed, requireUuid } from '@/lib/server/route';

type P = { id: string };

/** `{ joinDomain }`: people who sign in by SSO with a verified email there join as members (owner or admin). */
export const PATCH = authed<P>(
  async ({ req, params, session, rt }) => {
    const input = await readJson(req, orgSettingsSchema, { maxBytes: 1024 });
    return Response.json(await updateOrgSettings(rt.handle.db, requireUuid(params.id, 'organization'), session.user.id, input));
  },
  { write: true },
);
