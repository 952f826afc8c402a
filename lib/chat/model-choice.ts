import { AppError } from '@/lib/http/errors';
import { modelChoiceProblem } from '@/lib/model/models';
import type { ThinkingKind } from '@/lib/model/thinking-kind';

import type { ChatRuntime } from './runtime';

/** One model as the page's picker shows it (GET /api/models). Nothing about the key or the endpoint. */
export interface ModelView {
  id: string;
  label: string;
  contextWindow: number;
  maxOutputTokens: number;
  /** How it thinks: with a budget of tokens, or adaptively with an effort (lib/model/thinking-kind.ts). */
  thinking: ThinkingKind;
}

export interface ModelsView {
  models: ModelView[];
  /** A new conversation's model. */
  default: string;
  /** Why only the default is offered (the listing failed), else null. */
  error: string | null;
}

export async function listModels(rt: Pick<ChatRuntime, 'models'>): Promise<ModelsView> {
  const listing = await rt.models.list();
  return {
    models: listing.models.map(({ id, label, contextWindow, maxOutputTokens, thinking }) => ({
      id,
      label,
      contextWindow,
      maxOutputTokens,
      thinking,
    })),
    default: listing.default,
    error: listing.error,
  };
}

/** A model the person chose, checked against the listing: a 400 naming `field` and the models allowed. */
export async function checkedModel(rt: Pick<ChatRuntime, 'models'>, model: string, field = 'model'): Promise<string> {
  const problem = modelChoiceProblem(await rt.models.list(), model);
  if (problem) throw new AppError('bad_request', 'body', `${field}: ${problem}`, field);
  return model;
}

/**
 * The model a new turn of the conversation asks: the conversation's own while the listing offers
 * it; one the endpoint no longer lists (retired, or a conversation from before the key changed)
 * gives way to the configured model rather than failing every turn. When the listing itself
 * failed nothing is known, and the conversation's choice stands.
 */
export async function modelForTurn(rt: Pick<ChatRuntime, 'models'>, conversationModel: string): Promise<string> {
  const listing = await rt.models.list();
  if (listing.error || listing.models.some((m) => m.id === conversationModel)) return conversationModel;
  return listing.default;
}
