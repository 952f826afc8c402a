import { usesSecureCookies } from '@/lib/auth/secure-cookies';
import { getSessionFromCookies, type Session } from '@/lib/auth/session';
import { AppError, errorResponse } from '@/lib/http/errors';
import { assertSameOrigin } from '@/lib/http/origin';

import { getRuntime, type Runtime } from './runtime';

export interface RouteContext<P> {
  req: Request;
  params: P;
  session: Session;
  rt: Runtime;
}

/**
 * Wraps a route handler: a session is required, writes must come from our own origin, and any
 * error becomes `{ error: { code, message, field? } }` with its status.
 */
export function authed<P = Record<string, never>>(handler: (ctx: RouteContext<P>) => Promise<Response>, opts: { write?: boolean } = {}) {
  return async (req: Request, context: { params: Promise<P> }): Promise<Response> => {
    try {
      if (opts.write) assertSameOrigin(req);
      const rt = await getRuntime();
      const session = await getSessionFromCookies(rt.handle.db, rt.secret, req.headers.get('cookie'), { secure: usesSecureCookies(req) });
      if (!session) throw new AppError('unauthorized', 'session', 'Sign in to continue.');
      return await handler({ req, params: await context.params, session, rt });
    } catch (err) {
      return errorResponse(err);
    }
  };
}

/**
 * For routes that anyone may reach and that read the session when there is one (a share link:
 * its token is the capability, and some links ask for a signed-in reader). `headers` go on every
 * answer, errors included.
 */
export function maybeAuthed<P = Record<string, never>>(
  handler: (ctx: Omit<RouteContext<P>, 'session'> & { session: Session | null }) => Promise<Response>,
  opts: { write?: boolean; headers?: Record<string, string> } = {},
) {
  return async (req: Request, context: { params: Promise<P> }): Promise<Response> => {
    let res: Response;
    try {
      if (opts.write) assertSameOrigin(req);
      const rt = await getRuntime();
      const session = await getSessionFromCookies(rt.handle.db, rt.secret, req.headers.get('cookie'), { secure: usesSecureCookies(req) });
      res = await handler({ req, params: await context.params, session, rt });
    } catch (err) {
      res = errorResponse(err);
    }
    for (const [k, v] of Object.entries(opts.headers ?? {})) res.headers.set(k, v);
    return res;
  };
}

/** For public routes (sign-up): origin check and error mapping, no session. */
export function open(handler: (req: Request, rt: Runtime) => Promise<Response>, opts: { write?: boolean } = {}) {
  return async (req: Request): Promise<Response> => {
    try {
      if (opts.write) assertSameOrigin(req);
      return await handler(req, await getRuntime());
    } catch (err) {
      return errorResponse(err);
    }
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids in paths are UUIDs; anything else is simply not found (and never reaches SQL as a bad cast). */
export function requireUuid(id: string, what: string): string {
  if (!UUID.test(id)) throw new AppError('not_found', what, `No ${what} with id "${id}".`);
  return id;
}
