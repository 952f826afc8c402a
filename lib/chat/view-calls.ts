import { getToolCallForUser, listViewCalls } from '@/db/queries/tool-calls';
import { toToolCallView, type ToolCallView } from '@/lib/agent/tool-call-view';
import { askFromView, ViewCallError, type ViewCallRequest } from '@/lib/agent/view-calls';
import { AppError } from '@/lib/http/errors';

import type { ChatRuntime } from './runtime';

/**
 * A tool call's interactive view asks to call a tool (`tools/call` over the MCP Apps bridge): the
 * engine decides it as it decides the model's (lib/agent/view-calls.ts). The answer is the call
 * as it stands: finished (its result goes back to the view), or waiting for the person's decision
 * on the same approval card and route as any call.
 */
export async function callFromView(rt: ChatRuntime, req: ViewCallRequest): Promise<{ toolCall: ToolCallView }> {
  try {
    return { toolCall: toToolCallView(await askFromView(rt.engine, req)) };
  } catch (err) {
    throw asAppError(err);
  }
}

/** The calls one view asked for, oldest first: the page shows those still waiting for the person. */
export async function viewCalls(rt: ChatRuntime, userId: string, viewOf: string): Promise<{ toolCalls: ToolCallView[] }> {
  const parent = await getToolCallForUser(rt.handle.db, userId, viewOf);
  if (!parent) throw new AppError('not_found', 'tool_call', `No tool call with id "${viewOf}".`);
  return { toolCalls: (await listViewCalls(rt.handle.db, parent.id)).map(toToolCallView) };
}

function asAppError(err: unknown): unknown {
  if (!(err instanceof ViewCallError)) return err;
  const type = {
    not_found: 'not_found',
    conflict: 'conflict',
    invalid: 'bad_request',
    unavailable: 'bad_gateway',
    rate_limited: 'rate_limited',
  } as const;
  return new AppError(type[err.kind], 'view_call', err.message, err.field);
}
