import type { AuthInfo } from '@modelcontextprotocol/server';

import { errorSummary } from '@/lib/log-safe';

import type { CallerIdentity } from '../types';

/**
 * The one place that knows how the host tells a first-party server who the caller is. The host
 * passes this object as `authInfo` to the handler's `fetch` (never through headers or arguments),
 * and the SDK hands it to tool handlers as `ctx.http.authInfo`; the model cannot reach it.
 */
export function builtinAuthInfo(caller: CallerIdentity): AuthInfo {
  return {
    token: 'builtin',
    clientId: 'switchboard',
    scopes: [],
    extra: { userId: caller.userId, ...(caller.conversationId ? { conversationId: caller.conversationId } : {}) },
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The caller set by the host, or null when the request carries none (or a malformed one). */
export function callerFromAuthInfo(authInfo: AuthInfo | undefined): CallerIdentity | null {
  const extra = authInfo?.extra;
  const userId = extra?.userId;
  // users.id is a uuid column: anything else would only surface later as a database error.
  if (typeof userId !== 'string' || !UUID.test(userId)) return null;
  const conversationId = typeof extra?.conversationId === 'string' ? extra.conversationId : undefined;
  return conversationId ? { userId, conversationId } : { userId };
}

export const NO_USER_MESSAGE =
  'no signed-in user: this first-party server only runs for a signed-in Switchboard user, and the user comes from the session, not from ' +
  'tool arguments.';

/**
 * The `onerror` of a first-party handler. Errors can quote what they were about (a query's
 * parameters, a request's content): only their summary is logged.
 */
export function logHandlerError(server: string): (err: Error) => void {
  return (err) => console.error(`[${server}] MCP handler error:`, errorSummary(err));
}
