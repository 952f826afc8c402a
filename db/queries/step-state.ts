import { sql } from 'drizzle-orm';

import type { Db } from '../connection';
import { utcDay } from './model-usage';
import { rowsOf } from './rate-limits';

/**
 * What a run's step must know of the database before it calls the model, read in one statement
 * (the person's instructions with it: no statement of their own).
 */
export interface StepState {
  /** `users.tools_rev`: what was read at the same value (servers, grants, switches) may be reused. */
  toolsRev: number;
  /** The model tokens the user's turns used today (UTC). */
  tokensToday: number;
  /** Whether a tool result of the conversation was too large to send whole (the paging tool is offered then). */
  hasStoredResults: boolean;
  /**
   * The server whose untrusted content entered the conversation's context, by name, or null: its
   * mark, or a stored result whose content was not trusted (the same rule as getConversationTaint).
   */
  taintedBy: string | null;
  /** The person's instructions (null: none): their own for every conversation, and this conversation's. */
  instructions: { personal: string | null; conversation: string | null };
}

/** The step's state, or null when the conversation or its user is gone. */
export async function readStepState(db: Db, userId: string, conversationId: string, now = new Date()): Promise<StepState | null> {
  // Raw `conversations.…` in the subqueries: an interpolated column may be rendered unqualified.
  const result = await db.execute(sql`
    select u.tools_rev,
      coalesce((select tokens from model_usage where user_id = u.id and day = ${utcDay(now)}), 0) as tokens_today,
      exists (select 1 from tool_calls t where t.conversation_id = conversations.id and t.full_text is not null) as has_stored_results,
      coalesce(conversations.tainted ->> 'serverName', (
        select coalesce(t.server_name, 'an untrusted server') from tool_calls t
        where t.conversation_id = conversations.id and not t.content_trusted and t.status in ('succeeded', 'errored')
          and t.asked_by_call_id is null
        order by t.created_at asc limit 1
      )) as tainted_by,
      u.instructions as personal_instructions,
      conversations.instructions as conversation_instructions
    from users u, conversations
    where u.id = ${userId} and conversations.id = ${conversationId}`);
  const row = rowsOf<{
    tools_rev: string | number;
    tokens_today: string | number;
    has_stored_results: boolean;
    tainted_by: string | null;
    personal_instructions: string | null;
    conversation_instructions: string | null;
  }>(result)[0];
  if (!row) return null;
  return {
    toolsRev: Number(row.tools_rev),
    tokensToday: Number(row.tokens_today),
    hasStoredResults: Boolean(row.has_stored_results),
    taintedBy: row.tainted_by ?? null,
    instructions: { personal: row.personal_instructions ?? null, conversation: row.conversation_instructions ?? null },
  };
}

/** `users.tools_rev` alone: a re-check right before calls run asks only whether anything changed. */
export async function readToolsRev(db: Db, userId: string): Promise<number | null> {
  const rows = rowsOf<{ tools_rev: string | number }>(await db.execute(sql`select tools_rev from users where id = ${userId}`));
  return rows[0] ? Number(rows[0].tools_rev) : null;
}
