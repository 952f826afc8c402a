import { z } from 'zod';

import { EXPORT_FORMATS, exportConversation, exportFileName } from '@/lib/chat/export';
import { exportMarkdown } from '@/lib/chat/export-markdown';
import { readQuery } from '@/lib/http/query';
import { authed, requireUuid } from '@/lib/server/route';

type P = { id: string };

const querySchema = z
  .object({ format: z.enum(EXPORT_FORMATS, { error: `must be one of ${EXPORT_FORMATS.join(', ')}` }).default('md') })
  .strict();

const CONTENT_TYPE = { md: 'text/markdown; charset=utf-8', json: 'application/json; charset=utf-8' } as const;

/** The conversation as a download: Markdown to read, or the versioned JSON document (lib/chat/export.ts). */
export const GET = authed<P>(async ({ req, rt, session, params }) => {
  const id = requireUuid(params.id, 'conversation');
  const { format } = readQuery(req.url, querySchema);
  const doc = await exportConversation(rt, session.user.id, id);
  const body = format === 'md' ? exportMarkdown(doc) : JSON.stringify(doc, null, 2);
  return new Response(body, {
    headers: {
      'Content-Type': CONTENT_TYPE[format],
      'Content-Disposition': `attachment; filename="${exportFileName(doc.conversation.title, format)}"`,
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
    },
  });
});
