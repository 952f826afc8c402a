import type { Db } from '@/db/connection';
import { conversationTitles, proposedToolInput } from '@/db/queries/audit';
import type { ToolCallRow } from '@/db/queries/tool-calls';
import { appendAudit } from '@/lib/audit/append';
import { isAuditable, toolCallEntry } from '@/lib/audit/tool-call-entry';

import type { EngineDeps } from './deps';
import { observe } from './observe';

/**
 * The one place the engine writes the audit log: every call that reached an end state —
 * succeeded, errored, timed out, cancelled, unknown, denied, rejected — gets its entry, in the
 * same transaction that wrote that state (`tx`), so a crash leaves both or neither. Calls not yet
 * at an end are skipped; a call already in the log is not written twice.
 *
 * Call it after the transaction's other row writes: it takes the user's chain-head lock, which
 * must be the last lock of the transaction (see appendAudit).
 */
export async function auditEndedCalls(
  tx: Db,
  deps: Pick<EngineDeps, 'auditKeys' | 'observe'>,
  calls: ToolCallRow[],
  /** Conversation titles the caller already read in this transaction (the rest are read). */
  known: ReadonlyMap<string, string> = new Map(),
): Promise<void> {
  const ended = calls.filter(isAuditable);
  if (!ended.length) return;
  const keys = await deps.auditKeys();
  const unknown = [...new Set(ended.map((c) => c.conversationId))].filter((id) => !known.has(id));
  const titles = new Map([...known, ...(await conversationTitles(tx, unknown))]);
  const entries = [];
  for (const call of ended) {
    const proposedInput = call.decision?.editedFrom ? await proposedToolInput(tx, call.runId, call.toolUseId) : call.input;
    entries.push(toolCallEntry(call, { conversationTitle: titles.get(call.conversationId) ?? '(deleted conversation)', proposedInput }));
  }
  await appendAudit(tx, keys, entries);
  // Every end of a call passes here, so this is where they are counted. Still inside the
  // transaction (it has no commit hook): one that fails after its audit write counts a call
  // that did not end, which only a database error causes.
  for (const call of ended) observe(deps, (o) => o.toolCallEnded(call.status));
}
