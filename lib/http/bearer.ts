import { timingSafeEqual } from 'node:crypto';

import { readConfig } from '@/lib/config';

import { AppError } from './errors';

/**
 * The operators' endpoints (the sweep, the metrics) are behind a token of their own, not a
 * person's session. Without the variable set the endpoint does not exist (404); a request without
 * the exact token gets 401. The comparison takes the same time whatever matches.
 */
export function requireBearerToken(req: Request, spec: { variable: 'SWEEP_TOKEN' | 'METRICS_TOKEN'; surface: string; what: string }): void {
  const token = readConfig()[spec.variable];
  if (!token) throw new AppError('not_found', spec.surface, `The ${spec.what} endpoint is off: set ${spec.variable} to enable it.`);
  // Only the Bearer scheme: a bare token in the header is refused like a wrong one.
  const given = Buffer.from(/^Bearer (.+)$/.exec(req.headers.get('authorization') ?? '')?.[1] ?? '');
  const expected = Buffer.from(token);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new AppError('unauthorized', spec.surface, `A valid ${spec.what} token is required (Authorization: Bearer $${spec.variable}).`);
  }
}
