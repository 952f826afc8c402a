import { z } from 'zod';

import { updateViewContext } from '@/lib/chat/view-context';
import { readJson } from '@/lib/http/json';
import { authed, requireUuid } from '@/lib/server/route';

type P = { id: string };

// The params of the view's `ui/update-model-context` (MCP Apps): content blocks and structured content.
const contextSchema = z
  .object({
    content: z
      .array(z.looseObject({ type: z.string({ error: 'must name its type' }), text: z.unknown().optional() }), {
        error: 'must be a list of content blocks',
      })
      .max(50, 'must be at most 50 blocks')
      .optional(),
    structuredContent: z.record(z.string(), z.unknown(), { error: 'must be a JSON object' }).optional(),
  })
  .strict();

/** What this call's interactive view says the model should know of it: stored with the call and shown on its card. */
export const PUT = authed<P>(
  async ({ req, rt, session, params }) => {
    const body = await readJson(req, contextSchema, { maxBytes: 64 * 1024 });
    return Response.json(await updateViewContext(rt, session.user.id, requireUuid(params.id, 'tool call'), body));
  },
  { write: true },
);
