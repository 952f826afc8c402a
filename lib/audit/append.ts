import { isTransaction, type Db } from '@/db/connection';
import { auditedToolCalls, insertAuditEntriesAndMoveHead, lockChainHead, type NewAuditEntry } from '@/db/queries/audit';
import { storedAuditContent, type StoredAuditContent } from '@/db/stored-json';

import { entryMac, GENESIS } from './chain';
import type { AuditKeyring } from './key';

export interface AuditAppend {
  userId: string;
  content: StoredAuditContent;
}

/**
 * The columns the Activity filters use, derived from the content only: the verifier derives them
 * again and reports a row whose columns no longer match what its signed content says.
 */
export function indexColumns(content: StoredAuditContent) {
  if (content.kind === 'tool_call') {
    return {
      conversationId: content.conversation.id,
      toolCallId: content.toolCallId,
      serverId: content.server.id,
      tool: content.tool,
      outcome: content.outcome,
    };
  }
  if (content.kind === 'client_call') {
    return {
      conversationId: content.conversation?.id ?? null,
      toolCallId: null,
      serverId: content.server.id,
      tool: content.tool,
      outcome: content.outcome,
    };
  }
  return {
    conversationId: content.conversation?.id ?? null,
    toolCallId: null,
    serverId: content.server?.id ?? null,
    tool: content.tool,
    outcome: null,
  };
}

/**
 * Appends entries to their users' chains. Each user's chain head is locked FOR UPDATE for the
 * rest of the transaction, so parallel appends — other calls of the same step, other instances —
 * wait their turn and the chain stays one line. Pass the transaction that writes what the entry
 * records, so both commit or neither does; the head lock should be the last lock it takes (this
 * takes no other), which keeps lock order the same everywhere and rules out deadlocks.
 *
 * A tool call already in the log is skipped: the entry is written once per call.
 */
function inTransaction(db: Db, fn: (tx: Db) => Promise<void>): Promise<void> {
  return isTransaction(db) ? fn(db) : db.transaction(fn);
}

export async function appendAudit(db: Db, keys: AuditKeyring, entries: AuditAppend[]): Promise<void> {
  if (!entries.length) return;
  // Normalized to what the database gives back (the schema's output), so the MAC written is the MAC read.
  const parsed = entries.map((e) => ({ userId: e.userId, content: storedAuditContent.parse(JSON.parse(JSON.stringify(e.content))) }));
  const byUser = new Map<string, StoredAuditContent[]>();
  for (const e of parsed) byUser.set(e.userId, [...(byUser.get(e.userId) ?? []), e.content]);
  // Inside the caller's transaction as it is (a savepoint would cost two more statements per append).
  await inTransaction(db, async (tx) => {
    // Always the same order of users: two transactions appending for the same two users cannot deadlock.
    for (const userId of [...byUser.keys()].sort()) {
      const head = await lockChainHead(tx, userId);
      const contents = byUser.get(userId)!;
      const callIds = contents.flatMap((c) => (c.kind === 'tool_call' ? [c.toolCallId] : []));
      const already = await auditedToolCalls(tx, userId, callIds);
      let seq = head.lastSeq;
      let prev = head.lastHmac ?? GENESIS;
      // Never earlier than the entry before it, whichever instance's clock wrote that one.
      const at = new Date(Math.max(Date.now(), head.lastAt?.getTime() ?? 0));
      const rows: NewAuditEntry[] = [];
      for (const content of contents) {
        if (content.kind === 'tool_call') {
          if (already.has(content.toolCallId)) continue;
          already.add(content.toolCallId);
        }
        seq += 1;
        const fields = { userId, seq, at, kind: content.kind, keyId: keys.current.id, content };
        const hmac = entryMac(keys.current.key, prev, fields);
        rows.push({ ...fields, ...indexColumns(content), prevHmac: prev, hmac });
        prev = hmac;
      }
      if (!rows.length) continue;
      await insertAuditEntriesAndMoveHead(tx, userId, rows, { lastSeq: seq, lastHmac: prev, lastAt: at });
    }
  });
}
