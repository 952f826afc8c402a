import { createMcpHandler, McpServer, type CallToolResult, type McpHttpHandler, type ServerContext } from '@modelcontextprotocol/server';
import { z } from 'zod';

import type { Db } from '@/db/connection';
import { createNote, deleteNote, getNote, searchNotes, updateNote, type NoteRow } from '@/db/queries/notes';
import { errorSummary } from '@/lib/log-safe';

import { callerFromAuthInfo, logHandlerError, NO_USER_MESSAGE } from './auth';
import { registerNoteResources } from './notes-resources';
import { dataResult, mcpErrorResult, toolInput } from './tool-schema';

/**
 * The first-party `notes` server: a per-user notebook in our own database. The user is taken
 * only from the host-supplied authInfo (see ./auth.ts); no tool accepts a user id.
 */

const TITLE_MAX = 200;
const BODY_MAX = 100_000;

const noteId = z.uuid({ error: 'expected a note id (a UUID as returned by search or create)' });
const title = z.string().trim().min(1).max(TITLE_MAX);
const body = z.string().max(BODY_MAX);
const timestamp = z.iso.datetime().describe('ISO 8601 timestamp (UTC)');

const fullNote = z.strictObject({ id: z.uuid(), title: z.string(), body: z.string(), createdAt: timestamp, updatedAt: timestamp });

const searchInput = z.strictObject({
  query: z.string().max(200).describe('Text to find in titles and bodies (case-insensitive). Empty string lists the most recent notes.'),
  limit: z.int().min(1).max(50).default(10).describe('Most hits to return (1-50, default 10).'),
});
const searchOutput = z.strictObject({
  notes: z.array(
    z.strictObject({
      id: z.uuid(),
      title: z.string(),
      snippet: z.string().describe('Up to 200 characters of the body around the first match; … marks cut text.'),
      updatedAt: timestamp,
    }),
  ),
});
const getInput = z.strictObject({ id: noteId.describe('The note id.') });
const noteOutput = z.strictObject({ note: fullNote });
const createInput = z.strictObject({
  title: title.describe(`Title, 1-${TITLE_MAX} characters (trimmed).`),
  body: body.describe(`Body text (plain text or Markdown), at most ${BODY_MAX} characters; may be empty.`),
});
const updateInput = z
  .strictObject({
    id: noteId.describe('The note id.'),
    title: title.optional().describe(`New title, 1-${TITLE_MAX} characters. Omit to keep the current one.`),
    body: body.optional().describe(`New body, replaces the whole body (at most ${BODY_MAX} characters). Omit to keep it.`),
  })
  .refine((v) => v.title !== undefined || v.body !== undefined, { message: 'give at least one of title or body' });
const deleteInput = z.strictObject({
  id: noteId.describe('The note id.'),
  confirmTitle: z.string().max(TITLE_MAX).describe("The note's exact current title, as returned by get (case and spaces count)."),
});
const deleteOutput = z.strictObject({ deleted: z.strictObject({ id: z.uuid(), title: z.string() }) });

function noteData(n: NoteRow) {
  return { id: n.id, title: n.title, body: n.body, createdAt: n.createdAt.toISOString(), updatedAt: n.updatedAt.toISOString() };
}

function notFound(id: string): CallToolResult {
  return mcpErrorResult(
    `note not found: id "${id}" is not one of the signed-in user's notes (it may have been deleted). ` +
      'Call search (an empty query lists recent notes) to find valid ids.',
  );
}

/** Resolves the caller and the database, and keeps storage errors (SQL text) away from the model. */
async function asUser(
  ctx: ServerContext,
  getDb: () => Promise<Db>,
  tool: string,
  run: (db: Db, userId: string) => Promise<CallToolResult>,
): Promise<CallToolResult> {
  const caller = callerFromAuthInfo(ctx.http?.authInfo);
  if (!caller) return mcpErrorResult(NO_USER_MESSAGE);
  try {
    return await run(await getDb(), caller.userId);
  } catch (err) {
    console.error(`[notes] ${tool} failed:`, errorSummary(err));
    return mcpErrorResult(
      `notes ${tool} failed: the notes storage is unavailable right now. Nothing is known to have changed; try again later.`,
    );
  }
}

export function buildNotesServer(getDb: () => Promise<Db>): McpServer {
  const server = new McpServer(
    { name: 'switchboard-notes', version: '1.0.0' },
    { instructions: "The signed-in user's personal notes. Find ids with search before get, update or delete." },
  );

  server.registerTool(
    'search',
    {
      title: 'Search notes',
      description:
        "Find the user's notes whose title or body contains the query (case-insensitive), newest first; an empty query lists the most " +
        'recent notes. ' +
        'Use it to find a note id or to check whether something was noted before. Do not use it to read a whole note: hits carry only a ' +
        'snippet; call get for the full body. ' +
        'Read-only, no side effects. Returns { notes: [{ id, title, snippet, updatedAt }] } (an empty list when nothing matches).',
      inputSchema: toolInput(searchInput),
      outputSchema: searchOutput,
      annotations: { title: 'Search notes', readOnlyHint: true, openWorldHint: false },
    },
    (args, ctx) =>
      asUser(ctx, getDb, 'search', async (db, userId) => {
        const hits = await searchNotes(db, userId, { query: args.query, limit: args.limit });
        return dataResult({ notes: hits.map((h) => ({ ...h, updatedAt: h.updatedAt.toISOString() })) });
      }),
  );

  server.registerTool(
    'get',
    {
      title: 'Read a note',
      description:
        'Read one note in full by id. Use it before quoting, updating or deleting a note (delete needs its exact title). ' +
        'Do not use it to find notes: call search for ids. Read-only, no side effects. ' +
        'Returns { note: { id, title, body, createdAt, updatedAt } }; an unknown id is an error.',
      inputSchema: toolInput(getInput),
      outputSchema: noteOutput,
      annotations: { title: 'Read a note', readOnlyHint: true, openWorldHint: false },
    },
    (args, ctx) =>
      asUser(ctx, getDb, 'get', async (db, userId) => {
        const note = await getNote(db, userId, args.id);
        return note ? dataResult({ note: noteData(note) }) : notFound(args.id);
      }),
  );

  server.registerTool(
    'create',
    {
      title: 'Create a note',
      description:
        'Save a new note for the user. Use it when the user asks to note, remember or save something new. ' +
        'Do not use it to change an existing note (call update) and do not retry a call that succeeded: every call adds another note. ' +
        'Side effect: stores a new note. Returns { note: { id, title, body, createdAt, updatedAt } }.',
      inputSchema: toolInput(createInput),
      outputSchema: noteOutput,
      annotations: { title: 'Create a note', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    (args, ctx) => asUser(ctx, getDb, 'create', async (db, userId) => dataResult({ note: noteData(await createNote(db, userId, args)) })),
  );

  server.registerTool(
    'update',
    {
      title: 'Update a note',
      description:
        "Change a note's title and/or body (give at least one; omitted fields stay as they are; body replaces the whole body, so send " +
        'the full new text). ' +
        'Use it to edit or extend an existing note; read it with get first when appending. Do not use it to create notes. ' +
        'Side effect: overwrites the given fields and the updated time; repeating the same call changes nothing more. ' +
        'Returns { note: { id, title, body, createdAt, updatedAt } } as saved; an unknown id is an error.',
      inputSchema: toolInput(updateInput, { minProperties: 2 }),
      outputSchema: noteOutput,
      annotations: { title: 'Update a note', readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    (args, ctx) =>
      asUser(ctx, getDb, 'update', async (db, userId) => {
        const note = await updateNote(db, userId, args.id, { title: args.title, body: args.body });
        return note ? dataResult({ note: noteData(note) }) : notFound(args.id);
      }),
  );

  server.registerTool(
    'delete',
    {
      title: 'Delete a note',
      description:
        "Permanently delete one note. Only when the user asked for it. confirmTitle must be the note's exact current title: call get " +
        'first to read it. ' +
        'A mismatch deletes nothing and is an error. Do not use it to clear text (call update). ' +
        'Side effect: the note is gone for good (no undo). Returns { deleted: { id, title } }.',
      inputSchema: toolInput(deleteInput),
      outputSchema: deleteOutput,
      annotations: { title: 'Delete a note', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    },
    (args, ctx) =>
      asUser(ctx, getDb, 'delete', async (db, userId) => {
        const deleted = await deleteNote(db, userId, args.id, { ifTitle: args.confirmTitle });
        if (deleted) return dataResult({ deleted });
        if (!(await getNote(db, userId, args.id))) return notFound(args.id);
        return mcpErrorResult(
          `delete refused: confirmTitle ${JSON.stringify(args.confirmTitle)} is not the exact current title of note "${args.id}". ` +
            'Nothing was deleted. Call get with this id to read the exact title, then call delete again with confirmTitle set to it ' +
            'exactly (case and spaces count).',
        );
      }),
  );

  // The notes as resources too: the composer's `@` attaches one to a message.
  registerNoteResources(server, getDb);
  return server;
}

/** The notes server as a Web `Request → Response` handler; the factory runs once per request. */
export function createNotesServerHandler(getDb: () => Promise<Db>): McpHttpHandler {
  return createMcpHandler(() => buildNotesServer(getDb), {
    onerror: logHandlerError('notes'),
  });
}
