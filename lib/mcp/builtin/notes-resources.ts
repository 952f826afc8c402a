import type { McpServer, ServerContext } from '@modelcontextprotocol/server';

import type { Db } from '@/db/connection';
import { getNote, searchNotes } from '@/db/queries/notes';

import { callerFromAuthInfo, NO_USER_MESSAGE } from './auth';

/**
 * The person's notes as MCP resources (`notes://note/<id>`), so the composer's `@` picker can
 * attach one to a message: the 50 most recent are listed, any of the person's own can be read.
 * The user comes from the host-supplied authInfo only, as for the tools (./auth.ts). Plain
 * handlers on the underlying server rather than a resource template: a template would be listed
 * too, and nobody can fill in a note's id by hand.
 */

const LISTED_NOTES = 50;
const NOTE_URI = /^notes:\/\/note\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;

export const noteUri = (id: string) => `notes://note/${id}`;

function userOf(ctx: ServerContext): string {
  const caller = callerFromAuthInfo(ctx.http?.authInfo);
  if (!caller) throw new Error(NO_USER_MESSAGE);
  return caller.userId;
}

export function registerNoteResources(mcp: McpServer, getDb: () => Promise<Db>): void {
  const server = mcp.server;
  server.registerCapabilities({ resources: {} });
  server.setRequestHandler('resources/list', async (_request, ctx) => {
    const recent = await searchNotes(await getDb(), userOf(ctx), { query: '', limit: LISTED_NOTES });
    return {
      resources: recent.map((n) => ({
        uri: noteUri(n.id),
        name: n.title,
        ...(n.snippet && { description: n.snippet }),
        mimeType: 'text/markdown',
      })),
    };
  });
  server.setRequestHandler('resources/read', async (request, ctx) => {
    const uri = request.params.uri;
    const id = NOTE_URI.exec(uri)?.[1];
    const note = id ? await getNote(await getDb(), userOf(ctx), id) : null;
    if (!note) throw new Error(`No note at ${uri} among your notes.`);
    return { contents: [{ uri, mimeType: 'text/markdown', text: `# ${note.title}\n\n${note.body}` }] };
  });
}
