import type Anthropic from '@anthropic-ai/sdk';

import { instructionsSystemText } from '@/lib/model/instructions';

/** The person's instructions a step sends (db/queries/step-state.ts reads them with the step's state). */
export interface StepInstructions {
  personal: string | null;
  conversation: string | null;
}

/**
 * A step's system text: the app's prompt, then the person's instructions for every conversation,
 * then this conversation's, each a block of its own (lib/model/instructions.ts labels and fences
 * them). Without instructions it is the prompt alone, as before. With them, the last block carries
 * a cache breakpoint: the tools and the whole system text are a prefix that stays the same across
 * the conversation's turns, read from the cache even when the history before the newest messages
 * changed (a branch, a summary). It is one of the four a request may have
 * (./context/cache-breakpoints.ts counts it first).
 */
export function stepSystem(prompt: string, instructions?: StepInstructions | null): string | Anthropic.TextBlockParam[] {
  const blocks: Anthropic.TextBlockParam[] = [];
  if (instructions?.personal) blocks.push({ type: 'text', text: instructionsSystemText('personal', instructions.personal) });
  if (instructions?.conversation) blocks.push({ type: 'text', text: instructionsSystemText('conversation', instructions.conversation) });
  if (!blocks.length) return prompt;
  blocks.at(-1)!.cache_control = { type: 'ephemeral' };
  return [{ type: 'text', text: prompt }, ...blocks];
}
