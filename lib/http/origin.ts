import { AppError } from './errors';

/**
 * The origin the app is served from: APP_URL / AUTH_URL when set (behind a proxy),
 * else what the request itself says.
 */
export function appOrigin(req: Request): string {
  const configured = process.env.APP_URL ?? process.env.AUTH_URL;
  if (configured) return new URL(configured).origin;
  const host = req.headers.get('host');
  const url = new URL(req.url);
  return host ? `${url.protocol}//${host}` : url.origin;
}

/**
 * Writes must come from our own pages: an `Origin` equal to ours (a missing one is refused),
 * so another site cannot make a signed-in browser write on its behalf.
 */
export function assertSameOrigin(req: Request): void {
  const origin = req.headers.get('origin');
  if (!origin) throw new AppError('forbidden', 'origin', 'Writes need an Origin header from this app.');
  if (origin !== appOrigin(req)) {
    throw new AppError('forbidden', 'origin', `Requests from ${origin} may not write here.`);
  }
}

export function clientKey(req: Request): string {
  const forwarded = req.headers.get('x-forwarded-for');
  return forwarded?.split(',')[0]?.trim() || req.headers.get('x-real-ip') || 'unknown';
}
