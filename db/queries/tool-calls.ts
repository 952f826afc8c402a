import { and, asc, desc, eq, getTableColumns, inArray, isNotNull, notInArray, sql, type SQL } from 'drizzle-orm';

import type { Db } from '../connection';
import { toolCalls } from '../schema';
import {
  parseStored,
  storedAnnotations,
  storedDecision,
  storedFoundTools,
  storedInputRequests,
  storedInputResponses,
  storedSignIn,
  storedTask,
  storedToolResult,
  storedVerdict,
  storedViewContext,
  type StoredMessageContent,
  type StoredViewContext,
} from '../stored-json';
import { FINISHED_CALL_STATUSES, type ToolCallStatus } from '../vocabulary';
import { FOLLOWS_ACTIVE_LEAF, pathCte } from './messages';

/**
 * Every column but `full_text`: a stored result can be megabytes, and only the paging tool
 * (`getStoredResult`) needs it. Every other read — the conversation view, a step, a decision,
 * the row an update returns — names these columns, so it never loads one.
 */
const TOOL_CALL_COLUMNS = withoutFullText(getTableColumns(toolCalls));

function withoutFullText<T extends { fullText: unknown }>(columns: T): Omit<T, 'fullText'> {
  const rest: Partial<T> = { ...columns };
  delete rest.fullText;
  return rest as Omit<T, 'fullText'>;
}

export type ToolCallRow = Omit<typeof toolCalls.$inferSelect, 'fullText'>;
export type NewToolCall = typeof toolCalls.$inferInsert;
export type ToolCallPatch = Partial<
  Pick<
    typeof toolCalls.$inferSelect,
    | 'status'
    | 'verdict'
    | 'input'
    | 'argsHash'
    | 'decision'
    | 'inputResponses'
    | 'result'
    | 'resultChars'
    | 'resultTruncated'
    | 'isError'
    | 'fullText'
    | 'attempts'
    | 'inputRequests'
    | 'signIn'
    | 'requestState'
    | 'foundTools'
    | 'task'
    | 'contentTrusted'
    | 'startedAt'
    | 'endedAt'
  >
>;

/**
 * The `step` of a call asked by an interactive view (`asked_by_call_id`): it belongs to no model
 * step, so the engine's reads of a step's calls (results owed, approvals waited for) never see it.
 */
export const VIEW_CALL_STEP = -1;

/** Every JSON column of a call through its schema: a row from an older release loads in today's shape. */
export function parseToolCallRow(raw: ToolCallRow): ToolCallRow {
  const at = (column: string) => [`tool_calls.${column}`, raw.id] as const;
  return {
    ...raw,
    verdict: parseStored(storedVerdict, raw.verdict, ...at('verdict')),
    decision: parseStored(storedDecision, raw.decision, ...at('decision')),
    annotations: parseStored(storedAnnotations, raw.annotations, ...at('annotations')),
    result: parseStored(storedToolResult, raw.result, ...at('result')),
    inputRequests: parseStored(storedInputRequests, raw.inputRequests, ...at('inputRequests')),
    inputResponses: parseStored(storedInputResponses, raw.inputResponses, ...at('inputResponses')),
    signIn: parseStored(storedSignIn, raw.signIn, ...at('signIn')),
    foundTools: parseStored(storedFoundTools, raw.foundTools, ...at('foundTools')),
    viewContext: parseStored(storedViewContext, raw.viewContext, ...at('viewContext')),
    task: parseStored(storedTask, raw.task, ...at('task')),
  };
}

export async function insertToolCalls(db: Db, rows: NewToolCall[]): Promise<ToolCallRow[]> {
  if (rows.length === 0) return [];
  return (await db.insert(toolCalls).values(rows).returning(TOOL_CALL_COLUMNS)).map(parseToolCallRow);
}

export async function listStepToolCalls(db: Db, runId: string, step: number): Promise<ToolCallRow[]> {
  const rows = await db
    .select(TOOL_CALL_COLUMNS)
    .from(toolCalls)
    .where(and(eq(toolCalls.runId, runId), eq(toolCalls.step, step)))
    .orderBy(asc(toolCalls.position));
  return rows.map(parseToolCallRow);
}

export async function listConversationToolCalls(db: Db, conversationId: string): Promise<ToolCallRow[]> {
  const rows = await db
    .select(TOOL_CALL_COLUMNS)
    .from(toolCalls)
    .where(eq(toolCalls.conversationId, conversationId))
    .orderBy(asc(toolCalls.createdAt), asc(toolCalls.position));
  return rows.map(parseToolCallRow);
}

/** The calls of some of a conversation's turns, in the conversation's order (a share link's snapshot). */
export async function listToolCallsOfRuns(db: Db, conversationId: string, runIds: string[]): Promise<ToolCallRow[]> {
  if (runIds.length === 0) return [];
  const rows = await db
    .select(TOOL_CALL_COLUMNS)
    .from(toolCalls)
    .where(and(eq(toolCalls.conversationId, conversationId), inArray(toolCalls.runId, runIds)))
    .orderBy(asc(toolCalls.createdAt), asc(toolCalls.position));
  return rows.map(parseToolCallRow);
}

/** Ownership is part of the lookup: another user's call reads as not found. */
export async function getToolCallForUser(db: Db, userId: string, id: string): Promise<ToolCallRow | null> {
  const rows = await db
    .select(TOOL_CALL_COLUMNS)
    .from(toolCalls)
    .where(and(eq(toolCalls.id, id), eq(toolCalls.userId, userId)))
    .limit(1);
  return rows[0] ? parseToolCallRow(rows[0]) : null;
}

export async function getToolCall(db: Db, id: string): Promise<ToolCallRow | null> {
  const rows = await db.select(TOOL_CALL_COLUMNS).from(toolCalls).where(eq(toolCalls.id, id)).limit(1);
  return rows[0] ? parseToolCallRow(rows[0]) : null;
}

/** Compare-and-swap on the call's version: two tabs deciding at once, one wins. */
export async function updateToolCallIfVersion(db: Db, id: string, version: number, patch: ToolCallPatch): Promise<ToolCallRow | null> {
  const rows = await db
    .update(toolCalls)
    .set({ ...patch, version: version + 1 })
    .where(and(eq(toolCalls.id, id), eq(toolCalls.version, version)))
    .returning(TOOL_CALL_COLUMNS);
  return rows[0] ? parseToolCallRow(rows[0]) : null;
}

export async function countStepCallsWithStatus(
  db: Db,
  runId: string,
  step: number,
  status: ToolCallStatus | readonly ToolCallStatus[],
): Promise<number> {
  const statuses = typeof status === 'string' ? [status] : [...status];
  const rows = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(toolCalls)
    .where(and(eq(toolCalls.runId, runId), eq(toolCalls.step, step), inArray(toolCalls.status, statuses)));
  return Number(rows[0]?.n ?? 0);
}

/** Replaces what a call's view last said the model should know of it (`ui/update-model-context`). */
export async function setViewContext(
  db: Db,
  id: string,
  context: StoredViewContext,
  /** Written only over this context (its `at`; null: none yet) when given: else null, nothing written. */
  over?: string | null,
): Promise<ToolCallRow | null> {
  const unchanged = over === undefined ? undefined : sql`(${toolCalls.viewContext}->>'at') is not distinct from ${over}::text`;
  const rows = await db
    .update(toolCalls)
    .set({ viewContext: context })
    .where(and(eq(toolCalls.id, id), unchanged))
    .returning(TOOL_CALL_COLUMNS);
  return rows[0] ? parseToolCallRow(rows[0]) : null;
}

/** The calls an interactive view asked for (MCP Apps), oldest first. */
export async function listViewCalls(db: Db, askedByCallId: string): Promise<ToolCallRow[]> {
  const rows = await db
    .select(TOOL_CALL_COLUMNS)
    .from(toolCalls)
    .where(eq(toolCalls.askedByCallId, askedByCallId))
    .orderBy(asc(toolCalls.createdAt));
  return rows.map(parseToolCallRow);
}

/** How many calls from interactive views wait for the person: of one view (its card's call), and in its whole conversation. */
export async function countPendingViewCalls(
  db: Db,
  conversationId: string,
  askedByCallId: string,
): Promise<{ view: number; conversation: number }> {
  const rows = await db
    .select({
      view: sql<number>`count(*) filter (where ${toolCalls.askedByCallId} = ${askedByCallId})::int`,
      conversation: sql<number>`count(*)::int`,
    })
    .from(toolCalls)
    .where(and(eq(toolCalls.conversationId, conversationId), eq(toolCalls.step, VIEW_CALL_STEP), eq(toolCalls.status, 'pending_approval')));
  return { view: Number(rows[0]?.view ?? 0), conversation: Number(rows[0]?.conversation ?? 0) };
}

/** Whether a call asked by an interactive view of the conversation has not ended yet (waits for the person, or runs). */
export async function hasUnfinishedViewCalls(db: Db, conversationId: string): Promise<boolean> {
  const rows = await db
    .select({ id: toolCalls.id })
    .from(toolCalls)
    .where(
      and(
        eq(toolCalls.conversationId, conversationId),
        eq(toolCalls.step, VIEW_CALL_STEP),
        notInArray(toolCalls.status, [...FINISHED_CALL_STATUSES]),
      ),
    )
    .limit(1);
  return rows.length > 0;
}

/** A user's calls that wait for them to sign in to one server, oldest first. */
export async function listCallsAwaitingSignIn(db: Db, userId: string, serverId: string): Promise<ToolCallRow[]> {
  const rows = await db
    .select(TOOL_CALL_COLUMNS)
    .from(toolCalls)
    .where(and(eq(toolCalls.userId, userId), eq(toolCalls.serverId, serverId), eq(toolCalls.status, 'awaiting_sign_in')))
    .orderBy(asc(toolCalls.createdAt), asc(toolCalls.position));
  return rows.map(parseToolCallRow);
}

/** A stored full result of this conversation, for the paging host tool (never another conversation's). */
export async function getStoredResult(
  db: Db,
  conversationId: string,
  id: string,
): Promise<{ fullText: string; serverName: string | null; tool: string | null } | null> {
  const rows = await db
    .select({ fullText: toolCalls.fullText, serverName: toolCalls.serverName, tool: toolCalls.tool })
    .from(toolCalls)
    .where(and(eq(toolCalls.id, id), eq(toolCalls.conversationId, conversationId)))
    .limit(1);
  const row = rows[0];
  return row?.fullText != null ? { fullText: row.fullText, serverName: row.serverName, tool: row.tool } : null;
}

/**
 * The result a call's `tool_result` carried, by its tool_use id within one conversation: the full
 * text when it was cut, else the text of the result block as sent. For a result the history
 * sends as a stub to make room (lib/agent/context/stubs.ts), which the paging tool reads again.
 */
export async function getResultOfToolUse(
  db: Db,
  conversationId: string,
  toolUseId: string,
): Promise<{ fullText: string; serverName: string | null; tool: string | null } | null> {
  const rows = await db
    .select({ fullText: toolCalls.fullText, result: toolCalls.result, serverName: toolCalls.serverName, tool: toolCalls.tool })
    .from(toolCalls)
    .where(and(eq(toolCalls.conversationId, conversationId), eq(toolCalls.toolUseId, toolUseId)))
    .orderBy(desc(toolCalls.createdAt))
    .limit(1);
  const row = rows[0];
  if (!row) return null;
  const content = row.result?.content;
  const sent = typeof content === 'string' ? content : (content ?? []).map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');
  return { fullText: row.fullText ?? sent, serverName: row.serverName, tool: row.tool };
}

/**
 * Bytes of full result text a user keeps (what the stored-results quota counts). `octet_length`
 * reads the stored size, not the text, so this stays cheap however large the results are.
 */
export async function storedResultBytes(db: Db, userId: string): Promise<number> {
  const rows = await db
    .select({ bytes: sql<string>`coalesce(sum(octet_length(${toolCalls.fullText})), 0)::bigint` })
    .from(toolCalls)
    .where(and(eq(toolCalls.userId, userId), sql`${toolCalls.fullText} is not null`));
  return Number(rows[0]?.bytes ?? 0);
}

export async function hasStoredResults(db: Db, conversationId: string): Promise<boolean> {
  const rows = await db
    .select({ id: toolCalls.id })
    .from(toolCalls)
    .where(and(eq(toolCalls.conversationId, conversationId), sql`${toolCalls.fullText} is not null`))
    .limit(1);
  return rows.length > 0;
}

/**
 * Compare-and-swap that also requires the run to be running under `owner`'s lease: an instance
 * that stalled and lost its lease can no longer change a call another instance has finished.
 */
export async function updateToolCallIfLeased(
  db: Db,
  id: string,
  version: number,
  owner: string,
  patch: ToolCallPatch,
): Promise<ToolCallRow | null> {
  const rows = await leasedCallSwap(db, id, version, owner, patch).returning(TOOL_CALL_COLUMNS);
  return rows[0] ? parseToolCallRow(rows[0]) : null;
}

/**
 * The same compare-and-swap as updateToolCallIfLeased, as SQL for a statement that writes the
 * call's event with it (db/queries/events.ts `appendToLog`). The caller knows the new row: the
 * one it holds with the patch applied (the swap holds only if the row was exactly that).
 */
export function toolCallSwapSql(db: Db, id: string, version: number, owner: string, patch: ToolCallPatch): SQL {
  return leasedCallSwap(db, id, version, owner, patch).returning({ id: toolCalls.id }).getSQL();
}

function leasedCallSwap(db: Db, id: string, version: number, owner: string, patch: ToolCallPatch) {
  return db
    .update(toolCalls)
    .set({ ...patch, version: version + 1 })
    .where(
      and(
        eq(toolCalls.id, id),
        eq(toolCalls.version, version),
        sql`exists (select 1 from runs where runs.id = ${toolCalls.runId} and runs.lease_owner = ${owner} and runs.status = 'running')`,
      ),
    );
}

/** Closes a call that never finished, whatever its version: the history is about to say so. The closed row, or null. */
export async function closeUnfinishedCall(db: Db, id: string, patch: ToolCallPatch): Promise<ToolCallRow | null> {
  const rows = await db
    .update(toolCalls)
    .set({ ...patch, version: sql`${toolCalls.version} + 1` })
    .where(and(eq(toolCalls.id, id), notInArray(toolCalls.status, [...FINISHED_CALL_STATUSES])))
    .returning(TOOL_CALL_COLUMNS);
  return rows[0] ? parseToolCallRow(rows[0]) : null;
}

/**
 * The calls whose interactive view's latest context is owed to the turn that follows `leaf` (a
 * message id; undefined: the conversation's active leaf; null: the turn opens the conversation, so
 * nothing is owed) — lib/agent/view-context-turn.ts. Owed: the call's card is on that path (its
 * `tool_use` is in an assistant message of the path, as `callsAskedOn` matches) and no views'
 * message on the path delivered this very context (`origin.views` naming the call with the same
 * `at`). So delivery follows branches: a sibling branch that never saw a context gets it, and a
 * call on an abandoned branch owes nothing to the new one. Read on every message the person sends:
 * one statement, the path walked only when the conversation has a view's context at all.
 */
export async function listViewContextsOwed(db: Db, conversationId: string, leaf: string | null | undefined): Promise<ToolCallRow[]> {
  if (leaf === null) return [];
  const leafSql = leaf === undefined ? FOLLOWS_ACTIVE_LEAF(conversationId) : sql`${leaf}::uuid`;
  const rows = await db
    .select(TOOL_CALL_COLUMNS)
    .from(toolCalls)
    .where(
      and(
        eq(toolCalls.conversationId, conversationId),
        isNotNull(toolCalls.viewContext),
        // Raw names inside: an interpolated column may be rendered unqualified there.
        sql`tool_calls.id in (
          with recursive ${pathCte(conversationId, leafSql)},
          on_path as (select m.role, m.run_id, m.content, m.origin from path join messages m on m.id = path.id)
          select t.id from tool_calls t
          where t.conversation_id = ${conversationId} and t.view_context is not null
            and exists (select 1 from on_path p where p.role = 'assistant' and p.run_id = t.run_id
              and p.content @> jsonb_build_array(jsonb_build_object('type', 'tool_use', 'id', t.tool_use_id)))
            and not exists (select 1 from on_path p where p.origin->>'kind' = 'view_context'
              and p.origin->'views' @> jsonb_build_array(jsonb_build_object('toolCallId', t.id::text, 'at', t.view_context->'at'))))`,
      ),
    )
    .orderBy(asc(toolCalls.createdAt), asc(toolCalls.position));
  return rows.map(parseToolCallRow);
}

/**
 * The calls asked for on these messages (a page of a path), read by the turns they came from
 * rather than the whole conversation's: a long conversation's page reads its own calls only.
 */
export async function listToolCallsAskedOn(
  db: Db,
  conversationId: string,
  messages: readonly { role: string; runId: string | null; content: StoredMessageContent }[],
): Promise<ToolCallRow[]> {
  const runIds = new Set<string>();
  for (const m of messages) {
    if (m.role === 'assistant' && m.runId && m.content.some((b) => b.type === 'tool_use')) runIds.add(m.runId);
  }
  return callsAskedOn(messages, await listToolCallsOfRuns(db, conversationId, [...runIds]));
}

/**
 * The calls asked for by the assistant messages of a path (a call belongs to the branch of the
 * answer whose tool_use it is): what a view of one branch shows of a conversation's calls.
 */
export function callsAskedOn<C extends Pick<ToolCallRow, 'runId' | 'toolUseId'>>(
  path: readonly { role: string; runId: string | null; content: StoredMessageContent }[],
  calls: readonly C[],
): C[] {
  const asked = new Set<string>();
  for (const m of path) {
    if (m.role !== 'assistant') continue;
    for (const b of m.content) if (b.type === 'tool_use') asked.add(`${m.runId}/${b.id}`);
  }
  return calls.filter((c) => asked.has(`${c.runId}/${c.toolUseId}`));
}
