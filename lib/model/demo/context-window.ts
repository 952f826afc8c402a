import { modelLimits } from '../limits';
import { estimateInputTokens } from './request';

// The demo model's window, declared like a real model's (lib/model/limits.ts: `demo`, or
// MODEL_LIMITS for a smaller one in tests and demos), and enforced as the API enforces it: a
// request whose input counts more is refused before anything streams.

/** What `POST /v1/messages/count_tokens` answers, counted as the demo counts every request. */
export function countTokensBody(raw: string): { input_tokens: number } {
  return { input_tokens: estimateInputTokens(raw) };
}

/** The API's refusal of a request over the window ("prompt is too long: N tokens > M maximum"), or null when it fits. */
export function overWindow(model: string, raw: string): string | null {
  const tokens = estimateInputTokens(raw);
  const { contextWindow } = modelLimits(model);
  return tokens > contextWindow ? `prompt is too long: ${tokens} tokens > ${contextWindow} maximum` : null;
}
