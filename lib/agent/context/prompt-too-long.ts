import Anthropic from '@anthropic-ai/sdk';

/** What the API said when a request was over the window: the prompt's size and the window, in tokens. */
export interface PromptTooLong {
  tokens: number;
  maximum: number;
}

const PATTERN = /prompt is too long:\s*(\d+)\s*tokens\s*>\s*(\d+)\s*maximum/i;

/**
 * The API refuses a request over the model's window with 400 `invalid_request_error` "prompt is
 * too long: N tokens > M maximum", before anything streams. That is not a dead conversation: the
 * engine makes room and tries once more (drive-run.ts). Null for any other failure.
 */
export function promptTooLong(error: unknown): PromptTooLong | null {
  if (!(error instanceof Anthropic.APIError) || error.status !== 400) return null;
  const body = error.error as { error?: { message?: unknown }; message?: unknown } | undefined;
  const said = [error.message, body?.error?.message, body?.message].find((m): m is string => typeof m === 'string' && PATTERN.test(m));
  const match = said ? PATTERN.exec(said) : null;
  return match ? { tokens: Number(match[1]), maximum: Number(match[2]) } : null;
}
