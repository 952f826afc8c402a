import { readTextCapped } from '@/lib/http/json';

import { OAuthProblem } from './errors';

const MAX_FORM_BYTES = 16 * 1024;

/** An OAuth request body (`application/x-www-form-urlencoded`, RFC 6749 §3.2), bounded. */
export async function readForm(req: Request): Promise<URLSearchParams> {
  const type = req.headers.get('content-type') ?? '';
  if (!/^application\/x-www-form-urlencoded\b/i.test(type)) {
    throw new OAuthProblem(
      'invalid_request',
      `Send the parameters as application/x-www-form-urlencoded (got "${type.slice(0, 100) || 'none'}").`,
    );
  }
  let text: string;
  try {
    text = await readTextCapped(req, MAX_FORM_BYTES);
  } catch {
    throw new OAuthProblem('invalid_request', `The body is larger than ${MAX_FORM_BYTES / 1024} KB.`);
  }
  return new URLSearchParams(text);
}

/** A JSON body (dynamic registration, RFC 7591 §3.1), bounded. */
export async function readJsonBody(req: Request): Promise<unknown> {
  const type = req.headers.get('content-type') ?? '';
  if (!/^application\/json\b/i.test(type))
    throw new OAuthProblem(
      'invalid_client_metadata',
      `Send the client metadata as application/json (got "${type.slice(0, 100) || 'none'}").`,
    );
  try {
    return JSON.parse(await readTextCapped(req, MAX_FORM_BYTES));
  } catch {
    throw new OAuthProblem('invalid_client_metadata', `The body is not a JSON object of at most ${MAX_FORM_BYTES / 1024} KB.`);
  }
}
