import Anthropic from '@anthropic-ai/sdk';

import { readConfig, type Env } from '@/lib/config';

// Turns what the SDK throws into a stable code and a sentence a person can act
// on (what happened, and what to check). Hosts show `message` in the chat and
// branch on `code`. Pass errors from the model call or from reading its
// stream: a plain Error there means the answer broke off mid-stream.
//
// No message ever carries a secret: provider text is scrubbed of API keys and
// bearer tokens, and base URLs are reduced to their host (no userinfo).

export type ModelErrorCode =
  | 'model_auth' // 401
  | 'model_forbidden' // 403
  | 'model_not_found' // 404 — usually a wrong ANTHROPIC_MODEL
  | 'model_bad_request' // 400 / 413 / 422
  | 'model_rate_limited' // 429
  | 'model_overloaded' // 529 or overloaded_error
  | 'model_unavailable' // other 5xx
  | 'model_unreachable' // connection failed or timed out
  | 'model_stream_broken' // the answer stopped mid-stream
  | 'cancelled' // the caller aborted
  | 'model_error'; // anything else

export type ModelErrorDescription = { code: ModelErrorCode; message: string };

/** Longest piece of provider text quoted in a message. */
const MAX_PROVIDER_TEXT = 300;

export function describeModelError(err: unknown, ctx: { baseURL?: string } = {}): ModelErrorDescription {
  // Abort first: APIUserAbortError is an APIError without a status.
  if (err instanceof Anthropic.APIUserAbortError || isAbortError(err)) {
    return { code: 'cancelled', message: 'The request to the model was cancelled.' };
  }
  if (err instanceof Anthropic.APIConnectionError) {
    const where = hostOf(ctx.baseURL);
    const timedOut = err instanceof Anthropic.APIConnectionTimeoutError;
    return {
      code: 'model_unreachable',
      message:
        `Could not reach the model${where ? ` at ${where}` : ''}` +
        (timedOut ? ' (the request timed out).' : '.') +
        ' Check the network connection' +
        (where ? ' and ANTHROPIC_BASE_URL.' : '.'),
    };
  }
  if (err instanceof Anthropic.APIError) return describeApiError(err);
  if (err instanceof Error) {
    return {
      code: 'model_stream_broken',
      message: `The model's answer was cut off before it finished${detail(err.message)}`,
    };
  }
  return { code: 'model_error', message: `The model request failed${detail(stringify(err))}` };
}

function describeApiError(err: InstanceType<typeof Anthropic.APIError>): ModelErrorDescription {
  const status = err.status;
  const type = err.type ?? providerType(err.error);
  const said = providerMessage(err);

  if (status === 529 || type === 'overloaded_error') {
    return { code: 'model_overloaded', message: 'The model is overloaded right now (529). Try again shortly.' };
  }
  if (status === 429 || type === 'rate_limit_error') {
    const wait = retryAfterSeconds(err.headers);
    return {
      code: 'model_rate_limited',
      message: `The model provider is rate-limiting requests (429). Try again ${wait ? `in ${wait} seconds` : 'shortly'}.`,
    };
  }
  if (status === 401) {
    return { code: 'model_auth', message: 'The model provider rejected the API key (401). Check ANTHROPIC_API_KEY.' };
  }
  if (status === 403) {
    return {
      code: 'model_forbidden',
      message:
        `The model provider refused this request (403): the API key is not allowed to do this${detail(said)} Check ` +
        `ANTHROPIC_API_KEY and ANTHROPIC_MODEL.`,
    };
  }
  if (status === 404) {
    return {
      code: 'model_not_found',
      message:
        `The model provider could not find the model (404)${detail(said)} Check that ANTHROPIC_MODEL names a model your API key ` +
        `can use.`,
    };
  }
  if (status === 400 || status === 413 || status === 422) {
    return {
      code: 'model_bad_request',
      message: `The model provider rejected the request (${status})${detail(said)}`,
    };
  }
  if (status !== undefined && status >= 500) {
    return {
      code: 'model_unavailable',
      message: `The model provider had a server error (${status}). Try again shortly.`,
    };
  }
  if (status === undefined) {
    // No status: the SDK read an `event: error` from the stream, i.e. the
    // answer had started and the provider broke it off.
    return {
      code: 'model_stream_broken',
      message: `The model's answer was cut off before it finished${detail(said)}`,
    };
  }
  return { code: 'model_error', message: `The model request failed (${status})${detail(said)}` };
}

/** ": <text>." — provider text, scrubbed and cut — or just "." when there is none. */
function detail(text: string | null | undefined): string {
  const clean = redactSecrets((text ?? '').replace(/\s+/g, ' ').trim());
  if (!clean) return '.';
  const cut = clean.length > MAX_PROVIDER_TEXT ? `${clean.slice(0, MAX_PROVIDER_TEXT)}…` : clean;
  return `: ${cut}${/[.!?…]$/.test(cut) ? '' : '.'}`;
}

function providerMessage(err: InstanceType<typeof Anthropic.APIError>): string | null {
  if (err.apiMessage) return err.apiMessage;
  const body = err.error as { message?: unknown } | undefined;
  return typeof body?.message === 'string' ? body.message : null;
}

function providerType(body: unknown): string | null {
  const error = (body as { error?: { type?: unknown } } | undefined)?.error;
  return typeof error?.type === 'string' ? error.type : null;
}

function retryAfterSeconds(headers: Headers | undefined): number | null {
  const value = Number(headers?.get('retry-after'));
  return Number.isFinite(value) && value > 0 ? Math.ceil(value) : null;
}

/** The host of a base URL, without userinfo (which could hold credentials). */
function hostOf(baseURL: string | undefined): string | null {
  if (!baseURL) return null;
  try {
    return new URL(baseURL).host || null;
  } catch {
    return null;
  }
}

function isAbortError(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { name?: unknown }).name === 'AbortError';
}

function stringify(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** Removes API keys and bearer tokens from text before a person sees it. */
export function redactSecrets(text: string, env?: Env): string {
  let out = text
    .replace(/sk-ant-[A-Za-z0-9_-]+/g, 'sk-ant-[redacted]')
    .replace(/(bearer\s+)[^\s"',]+/gi, '$1[redacted]')
    .replace(/(x-api-key["']?\s*[:=]\s*["']?)[^\s"',]+/gi, '$1[redacted]');
  const config = readConfig(env);
  for (const secret of [config.ANTHROPIC_API_KEY, config.ANTHROPIC_AUTH_TOKEN]) {
    // Short values would redact ordinary words; real keys are long.
    if (secret && secret.length >= 8) out = out.split(secret).join('[redacted]');
  }
  return out;
}
