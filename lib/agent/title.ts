import type Anthropic from '@anthropic-ai/sdk';

import { replaceTitle } from '@/db/queries/conversations';
import { addModelTokens } from '@/db/queries/model-usage';
import { errorSummary } from '@/lib/log-safe';
import { cleanTitle, TITLE_SYSTEM_PROMPT } from '@/lib/model/titles';

import type { EngineDeps } from './deps';

/**
 * Asks the model for a short title for a new conversation and puts it in place of the
 * provisional one (the first line of the message) — unless the person renamed it meanwhile.
 * Runs after the response, beside the turn; a failure keeps the provisional title.
 */
export async function suggestTitle(
  deps: EngineDeps,
  target: { conversationId: string; userId: string },
  firstMessage: string,
  provisional: string,
): Promise<void> {
  const { conversationId } = target;
  try {
    const reply = await deps.model.client.messages.create({
      model: deps.model.model,
      max_tokens: 32,
      system: TITLE_SYSTEM_PROMPT,
      messages: [{ role: 'user', content: firstMessage.slice(0, 2000) }],
    });
    // On the operator's key too: it counts towards the person's model tokens for the day.
    await addModelTokens(deps.db, target.userId, (reply.usage?.input_tokens ?? 0) + (reply.usage?.output_tokens ?? 0));
    const text = reply.content
      .filter((b): b is Anthropic.TextBlock => b.type === 'text')
      .map((b) => b.text)
      .join(' ');
    const title = cleanTitle(text);
    if (title && title !== provisional) await replaceTitle(deps.db, conversationId, provisional, title);
  } catch (err) {
    console.error('[title] could not suggest a title:', errorSummary(err));
  }
}
