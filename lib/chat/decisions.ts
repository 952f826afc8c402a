import { z } from 'zod';

import { answerInput } from '@/lib/agent/answer-input';
import { decideCall, DecisionError } from '@/lib/agent/decide';
import { toToolCallView } from '@/lib/agent/tool-call-view';
import { AppError } from '@/lib/http/errors';
import type { Runtime } from '@/lib/server/runtime';

export const decisionSchema = z
  .object({
    decision: z.enum(['allow_once', 'allow_session', 'deny'], { error: 'must be one of allow_once, allow_session, deny' }),
    argsHash: z.string().regex(/^[0-9a-f]{64}$/, 'must be the 64-character hex hash shown with the call'),
    reason: z.string().max(1000, 'must be at most 1000 characters').optional(),
    input: z.record(z.string(), z.unknown(), { error: 'must be a JSON object' }).optional(),
  })
  .strict();

export async function decide(rt: Runtime, userId: string, toolCallId: string, body: z.infer<typeof decisionSchema>) {
  try {
    const { toolCall, resumed } = await decideCall(rt.engine, { userId, toolCallId, ...body });
    return { toolCall: toToolCallView(toolCall), resumed };
  } catch (err) {
    throw asAppError(err);
  }
}

export const inputSchema = z
  .object({
    responses: z.record(
      z.string(),
      z
        .object({
          action: z.enum(['accept', 'decline', 'cancel'], { error: 'must be one of accept, decline, cancel' }),
          content: z.record(z.string(), z.unknown(), { error: 'must be a JSON object' }).optional(),
        })
        .strict(),
      { error: 'must map each asked key to { action, content? }' },
    ),
  })
  .strict();

export async function answer(rt: Runtime, userId: string, toolCallId: string, body: z.infer<typeof inputSchema>) {
  try {
    const { toolCall, resumed } = await answerInput(rt.engine, { userId, toolCallId, responses: body.responses });
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
