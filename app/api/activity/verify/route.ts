import { z } from 'zod';

import { verifyMine } from '@/lib/audit/activity';
import { readQuery } from '@/lib/http/query';
import { authed } from '@/lib/server/route';

const verifyQuery = z
  .strictObject(
    {
      // The head line of an earlier export: catches entries deleted from the end since.
      seq: z
        .string()
        .regex(/^\d{1,15}$/, { error: 'must be the seq of an export’s head line' })
        .optional(),
      hmac: z
        .string()
        .regex(/^[0-9a-f]{64}$/, { error: 'must be the hmac of an export’s head line (64 hex digits)' })
        .optional(),
    },
    { error: 'unknown parameter: use seq and hmac (from an export’s head line), or nothing' },
  )
  .refine((q) => (q.seq === undefined) === (q.hmac === undefined), { error: 'give both seq and hmac, or neither', path: ['hmac'] });

/** Checks the person's audit chain: `{ ok: true, … }` or the first broken entry and why. */
export const GET = authed(async ({ req, rt, session }) => {
  const q = readQuery(req.url, verifyQuery);
  const head = q.seq && q.hmac ? { seq: Number(q.seq), hmac: q.hmac } : undefined;
  const result = await verifyMine(rt.handle.db, await rt.engine.auditKeys(), session.user.id, head);
  return Response.json(result, { headers: { 'Cache-Control': 'no-store' } });
});
