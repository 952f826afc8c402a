import { answerInput, type InputResponse } from '@/lib/agent/answer-input';
import { decideCall, DecisionError, type DecisionInput } from '@/lib/agent/decide';
import { toToolCallView } from '@/lib/agent/tool-call-view';
import { AppError } from '@/lib/http/errors';

import type { ChatRuntime } from './runtime';

/** A person's decision on a pending call; the engine errors become HTTP errors. */
export async function decide(rt: ChatRuntime, userId: string, toolCallId: string, body: Omit<DecisionInput, 'userId' | 'toolCallId'>) {
  try {
    const { toolCall, resumed } = await decideCall(rt.engine, { userId, toolCallId, ...body });
    return { toolCall: toToolCallView(toolCall), resumed };
  } catch (err) {
    throw asAppError(err);
  }
}

/** A person's answers to a server's elicitation. */
export async function answer(
  rt: ChatRuntime,
  userId: string,
  toolCallId: string,
  body: { responses: Record<string, InputResponse>; round?: number },
) {
  try {
    const { toolCall, resumed } = await answerInput(rt.engine, { userId, toolCallId, ...body });
    return { toolCall: toToolCallView(toolCall), resumed };
  } catch (err) {
    throw asAppError(err);
  }
}

function asAppError(err: unknown): unknown {
  if (!(err instanceof DecisionError)) return err;
  const type = err.kind === 'not_found' ? 'not_found' : err.kind === 'conflict' ? 'conflict' : 'bad_request';
  return new AppError(type, 'tool_call', err.message, err.field);
}
