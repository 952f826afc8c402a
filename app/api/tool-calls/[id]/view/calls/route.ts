import { z } from 'zod';

import { callFromView, viewCalls } from '@/lib/chat/view-calls';
import { readJson } from '@/lib/http/json';
import { authed, requireUuid } from '@/lib/server/route';

type P = { id: string };

// What the view's `tools/call` carries (the MCP request's params), as the card's bridge forwards it.
const viewCallSchema = z
  .object({
    name: z.string().min(1, 'must name a tool').max(128, 'must be at most 128 characters'),
    arguments: z.record(z.string(), z.unknown(), { error: 'must be a JSON object' }).default({}),
  })
  .strict();

/**
 * A tool call asked by this call's interactive view (MCP Apps): decided by the same consent as the
 * model's calls. Answers `{ toolCall }`: finished, or `pending_approval` until the person decides
 * it through `POST /api/tool-calls/:viewCallId/decision`, whose answer then carries the result.
 */
export const POST = authed<P>(
  async ({ req, rt, session, params }) => {
    const body = await readJson(req, viewCallSchema, { maxBytes: 256 * 1024 });
    const viewOf = requireUuid(params.id, 'tool call');
    const { toolCall } = await callFromView(rt, {
      userId: session.user.id,
      sessionId: session.sessionId,
      viewOf,
      name: body.name,
      arguments: body.arguments,
    });
    return Response.json({ toolCall }, { status: toolCall.status === 'pending_approval' ? 202 : 200 });
  },
  { write: true },
);

/** The calls this view asked for, oldest first (the card shows the ones still waiting for a decision). */
export const GET = authed<P>(async ({ rt, session, params }) =>
  Response.json(await viewCalls(rt, session.user.id, requireUuid(params.id, 'tool call'))),
);
