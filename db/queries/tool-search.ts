import { and, asc, desc, eq, isNotNull, ne, sql } from 'drizzle-orm';

import type { Db } from '../connection';
import { toolCalls } from '../schema';
import { parseStored, storedFoundTools } from '../stored-json';

export interface ToolIdentity {
  serverId: string;
  tool: string;
}

/**
 * The tools found by this run's tool searches that succeeded, newest search first (each search's
 * own order kept, best first). They are read from the calls, which store them in the same write
 * as the search's result: a run resumed or taken over by another instance offers the same tools.
 */
export async function listFoundTools(db: Db, runId: string): Promise<ToolIdentity[]> {
  const rows = await db
    .select({ id: toolCalls.id, foundTools: toolCalls.foundTools })
    .from(toolCalls)
    .where(and(eq(toolCalls.runId, runId), eq(toolCalls.status, 'succeeded'), isNotNull(toolCalls.foundTools)))
    .orderBy(desc(toolCalls.step), asc(toolCalls.position));
  return rows.flatMap((r) => parseStored(storedFoundTools, r.foundTools, 'tool_calls.foundTools', r.id)?.tools ?? []);
}

/**
 * The last `limit` distinct tools the model called in this conversation (whatever came of the
 * call: asked, denied or run), most recent first. Calls of the host's own tools and calls to a
 * name that was never offered are not counted.
 */
export async function listRecentTools(db: Db, conversationId: string, hostServerId: string, limit: number): Promise<ToolIdentity[]> {
  if (limit <= 0) return [];
  const last = sql<Date>`max(${toolCalls.createdAt})`;
  const rows = await db
    .select({ serverId: toolCalls.serverId, tool: toolCalls.tool, last })
    .from(toolCalls)
    .where(
      and(
        eq(toolCalls.conversationId, conversationId),
        isNotNull(toolCalls.serverId),
        isNotNull(toolCalls.tool),
        ne(toolCalls.serverId, hostServerId),
      ),
    )
    .groupBy(toolCalls.serverId, toolCalls.tool)
    // Calls of one step share a time: the tie is broken by name, so every instance keeps the same ones.
    .orderBy(desc(last), asc(toolCalls.serverId), asc(toolCalls.tool))
    .limit(limit);
  return rows.map((r) => ({ serverId: r.serverId!, tool: r.tool! }));
}
