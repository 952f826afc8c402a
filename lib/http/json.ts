import type { z } from 'zod';

import { AppError } from './errors';
import { readCapped } from './read-capped';

export const DEFAULT_MAX_BODY_BYTES = 256 * 1024;

/**
 * Reads a JSON body with a size cap and validates it. Errors say which field was wrong,
 * what was received and what is allowed.
 */
export async function readJson<S extends z.ZodType>(req: Request, schema: S, opts: { maxBytes?: number } = {}): Promise<z.infer<S>> {
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_BODY_BYTES;
  const type = req.headers.get('content-type') ?? '';
  if (!/^application\/json\b/i.test(type)) {
    throw new AppError(
      'unsupported_media_type',
      'body',
      `Send the body as JSON with "Content-Type: application/json" (got "${type || 'none'}").`,
    );
  }
  const declared = Number(req.headers.get('content-length') ?? NaN);
  if (declared > maxBytes) throw tooLarge(maxBytes);
  const text = await readTextCapped(req, maxBytes);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new AppError('bad_request', 'json', `The body is not valid JSON: ${(err as Error).message}.`);
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.length ? issue.path.join('.') : undefined;
    throw new AppError('bad_request', 'body', field ? `${field}: ${issue.message}` : issue.message, field);
  }
  return parsed.data;
}

function tooLarge(maxBytes: number): AppError {
  return new AppError('payload_too_large', 'body', `The body is larger than the ${Math.round(maxBytes / 1024)} KB allowed.`);
}

export async function readTextCapped(req: Request, maxBytes: number): Promise<string> {
  return new TextDecoder().decode(await readCapped(req.body, maxBytes, () => tooLarge(maxBytes)));
}
