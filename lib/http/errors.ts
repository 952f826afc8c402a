import { LimitExceeded } from '@/lib/limits';
import { errorSummary } from '@/lib/log-safe';

/**
 * The one error type of the HTTP surface. `code` is `type:surface` (e.g. `not_found:conversation`);
 * the type decides the status, the surface says what it was about.
 */
export type ErrorType =
  | 'bad_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'rate_limited'
  | 'internal'
  | 'bad_gateway';

const STATUS: Record<ErrorType, number> = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal: 500,
  /** A server the request needed (an MCP server's prompt or resource) failed to answer. */
  bad_gateway: 502,
};

export class AppError extends Error {
  readonly type: ErrorType;
  readonly surface: string;
  readonly field?: string;

  constructor(type: ErrorType, surface: string, message: string, field?: string) {
    super(message);
    this.type = type;
    this.surface = surface;
    this.field = field;
  }

  get code(): string {
    return `${this.type}:${this.surface}`;
  }

  get status(): number {
    return STATUS[this.type];
  }

  toJSON() {
    return { error: { code: this.code, message: this.message, ...(this.field ? { field: this.field } : {}) } };
  }
}

export function errorResponse(err: unknown): Response {
  if (err instanceof AppError) return Response.json(err.toJSON(), { status: err.status });
  if (err instanceof LimitExceeded) {
    const body = { error: { code: `rate_limited:${err.limit}`, message: err.message, limit: err.limit, plan: err.plan } };
    return Response.json(body, { status: 429 });
  }
  console.error('[http] unexpected error:', errorSummary(err));
  const internal = new AppError('internal', 'server', 'Something went wrong on our side. Try again.');
  return Response.json(internal.toJSON(), { status: 500 });
}
