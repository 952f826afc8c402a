import type { Db } from '@/db/connection';
import { loadAccountData } from '@/db/queries/account-export';
import { listOrgsOfUser } from '@/db/queries/orgs';
import { exportFiles, fileDeps } from '@/lib/files/service';
import { AppError } from '@/lib/http/errors';

export const EXPORT_FORMAT = 'switchboard-account-export';
export const EXPORT_VERSION = 1;

/**
 * The person's data as one JSON document: profile, sessions, conversations with their messages,
 * tool calls and share links, notes, MCP servers (without their credentials), personal access tokens
 * (without their hashes) and uploaded files. No password
 * hash, session id, token or secret is in it (see loadAccountData for what is left out).
 */
export async function buildAccountExport(db: Db, userId: string, now = new Date()) {
  const [data, orgs] = await Promise.all([loadAccountData(db, userId), listOrgsOfUser(db, userId)]);
  if (!data) throw new AppError('unauthorized', 'session', 'Sign in to continue.');
  // The conversation id is implied by where a row sits in the document.
  const byConversation = <T extends { conversationId: string }>(rows: T[], id: string): Omit<T, 'conversationId'>[] =>
    rows.filter((r) => r.conversationId === id).map((r) => omitConversationId(r));
  return {
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    exportedAt: now.toISOString(),
    profile: data.profile,
    linkedAccounts: data.linkedAccounts,
    sessions: data.sessions,
    conversations: data.conversations.map((c) => ({
      ...c,
      messages: byConversation(data.messages, c.id),
      toolCalls: byConversation(data.toolCalls, c.id),
      shareLinks: byConversation(data.shareLinks, c.id),
    })),
    notes: data.notes,
    servers: data.servers,
    // Names, prefixes and dates of the personal access tokens; never a token or its hash.
    accessTokens: data.accessTokens,
    // The organizations the person belongs to, with their role (the organizations' own data is not theirs).
    memberships: orgs.map((o) => ({ orgId: o.id, name: o.name, role: o.role })),
    // Uploaded files with their bytes; messages refer to them by id (a `source: { type: 'file' }` block).
    files: await exportFiles(fileDeps(db), userId),
  };
}

function omitConversationId<T extends { conversationId: string }>(row: T): Omit<T, 'conversationId'> {
  const copy: Partial<T> = { ...row };
  delete copy.conversationId;
  return copy as Omit<T, 'conversationId'>;
}

/** `switchboard-export-2026-05-01.json` */
export function exportFileName(now = new Date()): string {
  return `switchboard-export-${now.toISOString().slice(0, 10)}.json`;
}
