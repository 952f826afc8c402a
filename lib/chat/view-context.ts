import { getToolCallForUser, setViewContext } from '@/db/queries/tool-calls';
import type { StoredViewContext } from '@/db/stored-json';
import { argsHash } from '@/lib/agent/args-hash';
import { toToolCallView, type ToolCallView } from '@/lib/agent/tool-call-view';
import { AppError } from '@/lib/http/errors';

import type { ChatRuntime } from './runtime';

/** Past this much text, an update is refused (a view's context is a summary, not a document). */
export const MAX_VIEW_CONTEXT_CHARS = 16_000;

/** What `ui/update-model-context` carries (MCP Apps), as the card's bridge forwards it. */
export interface ViewContextUpdate {
  content?: { type: string; text?: unknown }[];
  structuredContent?: Record<string, unknown>;
}

/**
 * A view's `ui/update-model-context`: what the view says the model should know of its state. It is
 * stored with the view's call (each update replaces the last, as the spec says) and shown on the
 * card, so the person sees exactly what the view offered; the person's next message puts it before
 * the model (lib/agent/view-context-turn.ts). Text blocks only: another kind is refused, naming it.
 */
export async function updateViewContext(
  rt: ChatRuntime,
  userId: string,
  toolCallId: string,
  update: ViewContextUpdate,
): Promise<{ toolCall: ToolCallView }> {
  const call = await getToolCallForUser(rt.handle.db, userId, toolCallId);
  if (!call) throw new AppError('not_found', 'tool_call', `No tool call with id "${toolCallId}".`);
  if (!call.viewUri) throw new AppError('not_found', 'view', `The tool of this call (${call.modelName}) declared no interactive view.`);
  const blocks = update.content ?? [];
  const other = blocks.find((b) => b.type !== 'text' || typeof b.text !== 'string');
  if (other) {
    throw new AppError('bad_request', 'view_context', `content: a "${other.type}" block is not taken; only text blocks are.`, 'content');
  }
  const text = blocks.map((b) => b.text as string).join('\n');
  const structured = update.structuredContent;
  const size = text.length + (structured ? JSON.stringify(structured).length : 0);
  if (size > MAX_VIEW_CONTEXT_CHARS) {
    throw new AppError(
      'bad_request',
      'view_context',
      `content: ${size} characters; a view's context is limited to ${MAX_VIEW_CONTEXT_CHARS}.`,
      'content',
    );
  }
  let current = call;
  for (let attempt = 0; attempt < 3; attempt++) {
    const previous = current.viewContext;
    // A view re-sending the state it already sent (on load, say) is nothing new: its `at`, the
    // delivery mark (lib/agent/view-context-turn.ts), stays, so the model is not told it again.
    if (previous && sameContent(previous, text, structured)) return { toolCall: toToolCallView(current) };
    // New content always gets a later `at` than the last, even within one millisecond, or it would
    // read as already delivered; written only over the context it follows (another update may race).
    const at = new Date(Math.max(Date.now(), previous ? Date.parse(previous.at) + 1 : 0)).toISOString();
    const context: StoredViewContext = { v: 1, at, text, ...(structured && { structured }) };
    const updated = await setViewContext(rt.handle.db, call.id, context, previous?.at ?? null);
    if (updated) return { toolCall: toToolCallView(updated) };
    current = (await getToolCallForUser(rt.handle.db, userId, toolCallId)) ?? current;
  }
  throw new AppError('conflict', 'view_context', 'This view is being updated elsewhere; send the update again.');
}

function sameContent(previous: StoredViewContext, text: string, structured: Record<string, unknown> | undefined): boolean {
  return previous.text === text && argsHash(previous.structured ?? null) === argsHash(structured ?? null);
}
