import { createConversation, deleteConversation, getConversation } from '@/db/queries/conversations';
import { listPath } from '@/db/queries/messages';
import { getActiveRunOfClient, type RunRow } from '@/db/queries/runs';
import type { StoredConversationClient, StoredTaint } from '@/db/stored-json';
import { RunConflict, startRun, titleFrom } from '@/lib/agent/engine';
import { AppError } from '@/lib/http/errors';

import { modelForTurn } from './model-choice';
import type { ChatRuntime } from './runtime';

/**
 * A turn an MCP client asks for through `switchboard_ask` (lib/gateway/ask-tool.ts), started the
 * way the web chat starts one (`sendMessage`): the conversation's model and thinking, the person's
 * and the conversation's instructions (the engine adds them), their plan and run limits
 * (`startRun` admits it), one active run per conversation, a durable run driven after the call.
 * What differs: no signed-in session started it, so the client's profile is its grants
 * (`clientId`, lib/consent/stored-grants.ts), and a new conversation says which client started it.
 *
 * A follow-up goes only into a conversation this same client started (`started_by`): the turn's
 * model reads the whole conversation, so any other would let a client read — or make the model
 * repeat — what the person said elsewhere. Another person's conversation, the person's own, or
 * another client's all read as "not found" with the same words, so an id proves nothing.
 */
export async function startClientTurn(
  rt: ChatRuntime,
  input: {
    userId: string;
    client: StoredConversationClient;
    prompt: string;
    conversationId: string | null;
    title?: string;
    /** The client's standing taint: its prompt may carry an untrusted server's text, so the conversation starts tainted. */
    taint?: StoredTaint | null;
  },
): Promise<{ conversationId: string; run: RunRow }> {
  // The prompt is validated where it arrives (lib/gateway/ask-tool.ts: not empty, at most MAX_MESSAGE_CHARS).
  const prompt = input.prompt;
  // One turn at a time per client: its turns waiting for the person would otherwise fill the
  // person's own active-run limit and lock them out of their chat.
  const running = await getActiveRunOfClient(rt.handle.db, input.userId, input.client.id);
  if (running) {
    throw new AppError(
      'conflict',
      'run',
      `this client already has a turn in progress, in conversation "${running.conversationId}"; one at a time. Call again with ` +
        'that turn’s prompt and conversationId to get its answer, or wait until it ends.',
    );
  }
  const created = input.conversationId === null;
  const conversation = input.conversationId
    ? await clientConversation(rt, input.userId, input.client.id, input.conversationId)
    : await createConversation(rt.handle.db, {
        userId: input.userId,
        model: rt.modelConfig.model,
        title: input.title?.trim() ? titleFrom(input.title) : undefined,
        startedBy: input.client,
      });
  try {
    const { run } = await startRun(rt.engine, {
      conversationId: conversation.id,
      userId: input.userId,
      sessionId: null,
      clientId: input.client.id,
      text: prompt,
      taint: input.taint ?? null,
      thinking: conversation.thinking,
      model: await modelForTurn(rt, conversation.model),
    });
    return { conversationId: conversation.id, run };
  } catch (err) {
    // Not admitted (a plan or run limit): a conversation made for it would stay empty.
    if (created) await deleteConversation(rt.handle.db, input.userId, conversation.id);
    if (err instanceof RunConflict) throw new AppError('conflict', 'run', err.message);
    throw err;
  }
}

/** A conversation of this person that this client started, else "not found" (see above). */
export async function clientConversation(rt: ChatRuntime, userId: string, clientId: string, id: string) {
  const c = await getConversation(rt.handle.db, userId, id);
  if (!c || c.startedBy?.id !== clientId) {
    throw new AppError(
      'not_found',
      'conversation',
      `conversationId: no conversation "${id}" was started by this client. Follow up only in a conversation this client ` +
        'started with switchboard_ask (its id is in that answer); leave conversationId out to start a new one.',
      'conversationId',
    );
  }
  return c;
}

/**
 * The run's final answer: the text of the last assistant message it wrote on the conversation's
 * path (thinking and tool calls left out). Empty when it wrote none (it failed before answering).
 */
export async function runAnswer(rt: ChatRuntime, conversationId: string, runId: string): Promise<string> {
  const path = await listPath(rt.handle.db, conversationId);
  const last = path.findLast((m) => m.runId === runId && m.role === 'assistant');
  if (!last) return '';
  return last.content
    .flatMap((b) => (b.type === 'text' ? [b.text] : []))
    .join('\n\n')
    .trim();
}
