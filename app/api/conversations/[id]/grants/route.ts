import { z } from 'zod';

import { GRANT_EXPIRIES } from '@/db/vocabulary';
import { setGrant } from '@/lib/consent/grants-service';
import { SCOPE_FORMS } from '@/lib/consent/scopes';
import { readJson } from '@/lib/http/json';
import { consentDeps } from '@/lib/server/consent';
import { authed, requireUuid } from '@/lib/server/route';

type P = { id: string };

const grantSchema = z
  .object({
    scope: z.string({ error: `must be a string: ${SCOPE_FORMS}` }).max(400, 'must be at most 400 characters'),
    enabled: z.boolean({ error: 'must be true (switch on) or false (switch off)' }),
    autoApprove: z.boolean({ error: 'must be true or false' }).optional(),
    constraint: z.record(z.string(), z.unknown(), { error: 'must be a JSON Schema object, or null' }).nullable().optional(),
    expiresIn: z.enum(GRANT_EXPIRIES, { error: `must be one of ${GRANT_EXPIRIES.join(', ')}` }).optional(),
  })
  .strict();

/** Switch a tool or a whole server on (a grant of this session) or off, for this conversation. */
export const PUT = authed<P>(
  async ({ req, rt, session, params }) => {
    const conversationId = requireUuid(params.id, 'conversation');
    const body = await readJson(req, grantSchema, { maxBytes: 64 * 1024 });
    return Response.json(
      await setGrant(consentDeps(rt), { ...body, userId: session.user.id, sessionId: session.sessionId, conversationId }),
    );
  },
  { write: true },
);
