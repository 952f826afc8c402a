import { z } from 'zod';

import { MAX_ATTACHMENTS, type AttachmentRef } from '@/lib/chat/compose';
import { continueAnswer } from '@/lib/chat/continue';
import { MAX_MESSAGE_CHARS, sendMessage } from '@/lib/chat/service';
import { readJson } from '@/lib/http/json';
import { MAX_URI_CHARS } from '@/lib/mcp/resources';
import { eventStreamResponse } from '@/lib/server/events-response';
import { authed, requireUuid } from '@/lib/server/route';

type P = { id: string };

const promptRefSchema = z
  .object({
    serverId: z.string({ error: 'must be the id of one of your servers' }).min(1, 'must not be empty'),
    name: z.string({ error: "must be the name of one of the server's prompts" }).min(1, 'must not be empty'),
    arguments: z.record(z.string(), z.string({ error: 'must be a string' }), { error: 'must be an object of strings' }).default({}),
  })
  .strict();
const attachmentSchema = z
  .object({
    serverId: z.string({ error: 'must be the id of one of your servers' }).min(1, 'must not be empty').optional(),
    toolCallId: z.uuid({ error: 'must be the id of a tool call whose result linked to the resource' }).optional(),
    uri: z
      .string({ error: 'must be the URI of a resource' })
      .min(1, 'must not be empty')
      .max(MAX_URI_CHARS, `at most ${MAX_URI_CHARS} characters`),
  })
  .strict()
  .refine((a) => (a.serverId === undefined) !== (a.toolCallId === undefined), {
    message: 'give either serverId or toolCallId (the call whose result linked to it), and not both',
    path: ['serverId'],
  })
  .transform((a): AttachmentRef =>
    a.serverId !== undefined ? { serverId: a.serverId, uri: a.uri } : { toolCallId: a.toolCallId!, uri: a.uri },
  );
const messageSchema = z
  .object({
    text: z.string({ error: 'must be a string' }).default(''),
    prompt: promptRefSchema.optional(),
    attachments: z
      .array(attachmentSchema, { error: 'must be an array of { serverId, uri }' })
      .max(MAX_ATTACHMENTS, `at most ${MAX_ATTACHMENTS} per message`)
      .optional(),
    /** An edit: the message the new one follows instead of the active leaf (null: a new first message; lib/chat/branches.ts). */
    parentId: z.uuid({ error: 'must be the id of a message of this conversation, or null' }).nullable().optional(),
    /** Go on with the last answer, cut at the length limit (lib/chat/continue.ts). */
    continue: z.literal(true, { error: 'must be true (to continue the answer cut at the length limit)' }).optional(),
  })
  .strict()
  .refine((b) => !b.continue || (!b.text && !b.prompt && !b.attachments && b.parentId === undefined), {
    message: 'send it alone: a continued answer takes no text, prompt, attachments or parentId',
    path: ['continue'],
  });
/** A little over the text limit, for JSON escaping; the text's own limit is checked with a clearer message. */
const MAX_MESSAGE_BODY_BYTES = 4 * MAX_MESSAGE_CHARS + 1024;

/** Starts a turn (or continues a cut answer: `{ continue: true }`). `Accept: text/event-stream`: the turn's events; else 202. */
export const POST = authed<P>(
  async ({ req, rt, session, params }) => {
    const id = requireUuid(params.id, 'conversation');
    const {
      text,
      prompt,
      attachments,
      parentId,
      continue: goOn,
    } = await readJson(req, messageSchema, { maxBytes: MAX_MESSAGE_BODY_BYTES });
    const who = { userId: session.user.id, sessionId: session.sessionId };
    const started = goOn ? await continueAnswer(rt, who, id) : await sendMessage(rt, who, id, text, { prompt, attachments, parentId });
    if (req.headers.get('accept')?.includes('text/event-stream')) {
      return eventStreamResponse(rt, session, id, started.afterSeq, req.signal);
    }
    return Response.json(started, { status: 202 });
  },
  { write: true },
);
