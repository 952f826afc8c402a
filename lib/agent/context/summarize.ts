import type Anthropic from '@anthropic-ai/sdk';

import { insertHistorySummary, type HistorySummaryRow } from '@/db/queries/history-summaries';
import type { MessageRow } from '@/db/queries/messages';
import { addModelTokens } from '@/db/queries/model-usage';
import type { StoredMessageOrigin } from '@/db/stored-json';
import { errorSummary } from '@/lib/log-safe';
import { SUMMARY_SYSTEM_PROMPT, TRANSCRIPT_MARKS } from '@/lib/model/summaries';

import type { EngineDeps } from '../deps';
import type { StoredMessage } from '../history';
import { CHARS_PER_TOKEN } from '../token-estimate';

/**
 * The second way to make room, when stubbing old results was not enough: the oldest turns are
 * summarized into one block, stored (`history_summaries`: the summary of every message with
 * seq ≤ through_seq) and sent in their place. The messages stay: the page still shows them, marked
 * "earlier messages summarized", and their results can still be read with the paging tool.
 */

/** Words sent in place of the summarized messages, at the head of the history. */
export function summaryMessage(summary: Pick<HistorySummaryRow, 'text' | 'throughSeq'>): StoredMessage {
  const text =
    `[The first ${summary.throughSeq} messages of this conversation were summarized by Switchboard to make room in the ` +
    `context window. The person can still read them. Summary:]\n${summary.text}`;
  return { role: 'user', content: [{ type: 'text', text }] };
}

/**
 * Where the summarized part may end: just before a message the person typed (a user message with
 * text and no tool results), so what is left starts a turn and every `tool_use` keeps its
 * `tool_result`; and never inside this run — the current turn's tool loop, thinking blocks
 * included, is sent unchanged. Indexes into `messages`, oldest first.
 */
export function summaryCuts(messages: readonly MessageRow[], runId: string): number[] {
  const ownStart = messages.findIndex((m) => m.runId === runId);
  const last = ownStart >= 0 ? ownStart : messages.length - 1;
  const cuts: number[] = [];
  for (let i = 1; i <= last; i++) {
    const m = messages[i]!;
    // What views told the model opens no turn of the person's: it stays with the message it came before.
    if (m.origin?.kind === 'view_context') continue;
    if (m.role === 'user' && m.content.some((b) => b.type === 'text' && b.text) && !m.content.some((b) => b.type === 'tool_result'))
      cuts.push(i);
  }
  return cuts;
}

/** A stored message as the summary reads it: its origin says when its words are not the person's. */
type SummarizedMessage = StoredMessage & { origin?: StoredMessageOrigin | null };

/** How long a summary may be: a small share of the room, so it never becomes the problem. */
export function summaryTokens(limit: number): number {
  return Math.min(2000, Math.max(200, Math.floor(limit / 8)));
}

/**
 * Summarizes `covered` (and the summary before it, which it replaces) with the model, stores it,
 * and tells the page. A model that fails leaves a plain summary of what the person asked, so the
 * conversation goes on. Null when the step was stopped meanwhile (nothing is stored).
 */
export async function writeSummary(
  deps: EngineDeps,
  run: { id: string; conversationId: string; userId: string },
  previous: string | null,
  covered: readonly MessageRow[],
  room: { limit: number },
  signal: AbortSignal,
): Promise<HistorySummaryRow | null> {
  const maxTokens = summaryTokens(room.limit);
  // The request itself must fit the window: the transcript gets about half the room.
  const transcript = transcriptOf(previous, covered, Math.floor(room.limit / 2));
  let text: string | null = null;
  try {
    const reply = await deps.model.client.messages.create(
      { model: deps.model.model, max_tokens: maxTokens, system: SUMMARY_SYSTEM_PROMPT, messages: [{ role: 'user', content: transcript }] },
      { signal },
    );
    const u = reply.usage;
    await addModelTokens(
      deps.db,
      run.userId,
      (u?.input_tokens ?? 0) + (u?.output_tokens ?? 0) + (u?.cache_creation_input_tokens ?? 0) + (u?.cache_read_input_tokens ?? 0),
    );
    text = reply.content
      .filter((b): b is Anthropic.TextBlock => b.type === 'text')
      .map((b) => b.text)
      .join('\n')
      .trim();
  } catch (err) {
    if (signal.aborted) return null;
    console.error('[context] the model could not summarize; keeping a plain summary:', errorSummary(err));
  }
  if (signal.aborted) return null;
  const last = covered.at(-1)!;
  const summary = await insertHistorySummary(deps.db, {
    conversationId: run.conversationId,
    throughSeq: last.seq,
    text: text || plainSummary(previous, covered),
    runId: run.id,
  });
  await deps.events.persist(run.conversationId, run.id, 'history.summarized', {
    summaryId: summary.id,
    throughSeq: summary.throughSeq,
    throughMessageId: last.id,
    text: summary.text,
  });
  return summary;
}

const QUOTE = { text: 1500, call: 200, result: 300 } as const;

/**
 * The summarized part as a transcript the model reads as one user message. Each piece is quoted
 * up to a length; past `budgetTokens` the middle is left out (the start sets the scene, the end
 * leads to what remains).
 */
export function transcriptOf(previous: string | null, messages: readonly SummarizedMessage[], budgetTokens: number): string {
  const lines: string[] = [];
  if (previous) lines.push(`${TRANSCRIPT_MARKS.earlier} ${previous}`);
  const names = new Map<string, string>();
  for (const m of messages) {
    // What interactive views told the model is theirs: never quoted as the person's words.
    const views = m.origin?.kind === 'view_context' ? m.origin.views.map((v) => v.serverName).join(', ') : null;
    const who = views
      ? `Interactive views of ${views} (not the person):`
      : m.role === 'user'
        ? TRANSCRIPT_MARKS.person
        : TRANSCRIPT_MARKS.assistant;
    for (const b of m.content) {
      if (b.type === 'text' && b.text.trim()) lines.push(`${who} ${cut(b.text, QUOTE.text)}`);
      else if (b.type === 'tool_use') {
        names.set(b.id, b.name);
        lines.push(`(The assistant called ${b.name} with ${cut(JSON.stringify(b.input), QUOTE.call)})`);
      } else if (b.type === 'tool_result') {
        const what = b.is_error ? 'failed' : 'returned';
        lines.push(`(${names.get(b.tool_use_id) ?? 'The tool'} ${what}: ${cut(resultText(b), QUOTE.result)})`);
      } else if (b.type === 'image' || b.type === 'document') {
        lines.push(`(The person attached ${b.type === 'document' && b.title ? `the file ${b.title}` : 'an image'}.)`);
      }
    }
  }
  const all = lines.join('\n');
  const budget = Math.max(1000, budgetTokens * CHARS_PER_TOKEN);
  if (all.length <= budget) return all;
  const head = Math.floor(budget / 3);
  return `${all.slice(0, head)}\n[… ${all.length - budget} characters left out …]\n${all.slice(all.length - (budget - head))}`;
}

/** When the model could not summarize: the earlier summary and what the person asked, so the thread is not lost. */
export function plainSummary(previous: string | null, messages: readonly SummarizedMessage[]): string {
  const asked = messages.flatMap((m) =>
    m.role === 'user' && m.origin?.kind !== 'view_context'
      ? m.content.flatMap((b) => (b.type === 'text' && b.text.trim() ? [`- ${cut(b.text, 200)}`] : []))
      : [],
  );
  return [
    ...(previous ? [previous, ''] : []),
    `Earlier, the person wrote (${asked.length} message${asked.length === 1 ? '' : 's'}; the answers and tool results are not summarized):`,
    ...asked,
  ].join('\n');
}

function resultText(block: Anthropic.ToolResultBlockParam): string {
  if (typeof block.content === 'string') return block.content;
  return (block.content ?? []).map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join(' ');
}

function cut(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
