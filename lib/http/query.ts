import type { z } from 'zod';

import { AppError } from './errors';

/**
 * Reads a request's query string through a schema (each parameter once, as a string). Errors say
 * which parameter was wrong, what was received and what is allowed, like a JSON body's.
 */
export function readQuery<S extends z.ZodType>(url: string, schema: S): z.infer<S> {
  const params = Object.fromEntries(new URL(url).searchParams.entries());
  const parsed = schema.safeParse(params);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    // An unknown parameter is named as the field, like any other wrong one.
    const path = issue.code === 'unrecognized_keys' ? [issue.keys[0]!] : issue.path;
    const field = path.length ? path.join('.') : undefined;
    throw new AppError('bad_request', 'query', field ? `${field}: ${issue.message}` : issue.message, field);
  }
  return parsed.data;
}
