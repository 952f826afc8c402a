import { z } from 'zod';

import type { AttachmentRef } from '@/lib/chat/compose';
import { MAX_MESSAGE_CHARS } from '@/lib/chat/service';
import { MAX_URI_CHARS } from '@/lib/mcp/resources';

/** The body of `POST /api/conversations/:id/messages`: a new message, an edit (parentId) or `{ continue: true }`. */

const MAX_ATTACHMENT_ENTRIES = 50;

const promptRefSchema = z
  .object({
    serverId: z.string({ error: 'must be the id of one of your servers' }).min(1, 'must not be empty'),
    name: z.string({ error: "must be the name of one of the server's prompts" }).min(1, 'must not be empty'),
    arguments: z.record(z.string(), z.string({ error: 'must be a string' }), { error: 'must be an object of strings' }).default({}),
  })
  .strict();

const resourceSchema = z
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

/** An uploaded file (`POST /api/files`). */
const fileSchema = z.object({ fileId: z.uuid({ error: 'must be the id of a file you uploaded (POST /api/files)' }) }).strict();

const ATTACHMENT_SHAPES = 'must be { fileId } (a file you uploaded) or { serverId, uri } / { toolCallId, uri } (a resource)';

/**
 * One attachment. The kind is chosen by its keys (fileId: a file; anything else: a resource), not by
 * trying both, so an error names the field that is wrong instead of "matches neither shape".
 */
const attachmentSchema = z.unknown().transform((value, ctx): AttachmentRef => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    ctx.addIssue({ code: 'custom', message: ATTACHMENT_SHAPES });
    return z.NEVER;
  }
  const parsed = ('fileId' in value ? fileSchema : resourceSchema).safeParse(value);
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path });
  return z.NEVER;
});

export const messageRequestSchema = z
  .object({
    text: z.string({ error: 'must be a string' }).default(''),
    prompt: promptRefSchema.optional(),
    attachments: z
      .array(attachmentSchema, { error: 'must be an array of { fileId } or { serverId, uri }' })
      // A bound on the body only: the per-kind limits (resources, files) are checked with clearer words.
      .max(MAX_ATTACHMENT_ENTRIES, `at most ${MAX_ATTACHMENT_ENTRIES} entries`)
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
export const MAX_MESSAGE_BODY_BYTES = 4 * MAX_MESSAGE_CHARS + 1024;
