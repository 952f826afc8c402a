import type { Env } from '@/lib/config';
import { modelLimits, type ListedLimits } from '@/lib/model/limits';

import type { ContextSettings } from './settings';

/** How much one request may carry: the model's window, the answer's room, and the input limit left. */
export interface StepRoom {
  contextWindow: number;
  /** The request's `max_tokens` (the answer, and the thinking budget when thinking is on). */
  maxTokens: number;
  /** Input tokens (system, tools, messages) a request may carry; past it the history is shortened. */
  limit: number;
}

/**
 * The window comes from `modelLimits` (what the models endpoint listed, else MODEL_LIMITS, else the
 * table of known models, else 200k). The API counts the answer's `max_tokens` against the window
 * too, so the input gets what is left, less the margin. A `max_tokens` that leaves almost nothing
 * (a misconfiguration) still leaves a quarter of the window, so the limit is never zero.
 */
export function stepRoom(
  model: string,
  maxTokens: number,
  settings: ContextSettings,
  listed: ListedLimits | null = null,
  env?: Env,
): StepRoom {
  const { contextWindow } = modelLimits(model, listed, env);
  const forInput = Math.max(contextWindow - maxTokens, Math.floor(contextWindow / 4));
  return { contextWindow, maxTokens, limit: Math.floor(forInput * (1 - settings.margin)) };
}

/** The room again once the API has said what the window really is (a "prompt is too long" names it). */
export function withMaximum(room: StepRoom, maximum: number, settings: ContextSettings): StepRoom {
  if (maximum >= room.contextWindow) return room;
  const forInput = Math.max(maximum - room.maxTokens, Math.floor(maximum / 4));
  return { contextWindow: maximum, maxTokens: room.maxTokens, limit: Math.floor(forInput * (1 - settings.margin)) };
}
