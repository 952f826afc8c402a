import { getConversation } from '@/db/queries/conversations';
import { getActiveLeaf } from '@/db/queries/messages';
import { getLatestRun } from '@/db/queries/runs';
import type { StoredMessageContent, StoredThinking } from '@/db/stored-json';
import { ACTIVE_RUN_STATUSES, isOneOf } from '@/db/vocabulary';
import { RunConflict, startRun } from '@/lib/agent/engine';
import { AppError } from '@/lib/http/errors';
import { CONTINUE_PROMPT } from '@/lib/model/continuation';

import { modelForTurn } from './model-choice';
import type { ChatRuntime } from './runtime';
import { toMessageView } from './views';

/**
 * How a cut answer goes on. `prefill`: the history ends with the cut answer itself and the model
 * continues it word for word (lib/agent/history.ts trims its trailing whitespace). The API allows
 * no prefill with extended thinking, and an answer whose thinking was cut (or that holds thinking
 * blocks the request would not ask for) cannot be continued as it stands: then `prompt`, a short
 * user message asking the model to go on.
 */
export type ContinueMode = 'prefill' | 'prompt';

export function continueMode(cut: StoredMessageContent, thinking: StoredThinking | null): ContinueMode {
  if (thinking?.enabled) return 'prompt';
  if (cut.some((b) => b.type === 'thinking' || b.type === 'redacted_thinking')) return 'prompt';
  const last = cut.at(-1);
  return last?.type === 'text' && last.text.trim() ? 'prefill' : 'prompt';
}

/**
 * Continues the conversation's last answer, which stopped at the model's length limit
 * (`max_tokens`): a new turn with no typed message, on the conversation's model and thinking
 * setting as they are now. A 409 when the last turn ended otherwise or one is still running.
 */
export async function continueAnswer(rt: ChatRuntime, session: { userId: string; sessionId: string }, id: string) {
  const conversation = await getConversation(rt.handle.db, session.userId, id);
  if (!conversation) throw new AppError('not_found', 'conversation', `No conversation with id "${id}".`);
  const [latest, last] = await Promise.all([getLatestRun(rt.handle.db, id), getActiveLeaf(rt.handle.db, id)]);
  if (latest && isOneOf(ACTIVE_RUN_STATUSES, latest.status)) throw new AppError('conflict', 'run', new RunConflict().message);
  if (!latest || latest.stopReason !== 'max_tokens' || last?.role !== 'assistant' || last.stopReason !== 'max_tokens') {
    throw new AppError(
      'conflict',
      'continue',
      'continue: there is nothing to continue; only an answer that stopped at the length limit (max_tokens) can be continued.',
      'continue',
    );
  }
  const mode = continueMode(last.content, conversation.thinking);
  try {
    const { run, afterSeq, messages } = await startRun(rt.engine, {
      conversationId: id,
      userId: session.userId,
      sessionId: session.sessionId,
      text: CONTINUE_PROMPT,
      thinking: conversation.thinking,
      model: await modelForTurn(rt, conversation.model),
      messages: mode === 'prefill' ? [] : [{ role: 'user', content: [{ type: 'text', text: CONTINUE_PROMPT }], origin: null }],
    });
    // The page shows the short user message of `prompt` at once, as stored.
    return { runId: run.id, status: run.status, afterSeq, mode, messages: messages.map(toMessageView) };
  } catch (err) {
    if (err instanceof RunConflict) throw new AppError('conflict', 'run', err.message);
    throw err;
  }
}
