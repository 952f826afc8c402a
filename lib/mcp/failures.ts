import { ProtocolError, SdkError, SdkErrorCode, SdkHttpError } from '@modelcontextprotocol/client';

import type { SignInReason } from '@/db/vocabulary';
import { redactSecrets } from '@/lib/log-safe';

import { RemoteServersDisabled } from './connection';
import { NotOAuthProtected, RefreshFailed } from './oauth/errors';
import type { McpServerConfig } from './types';
import { NOT_PUBLIC, UrlRefused } from './url-guard';

/**
 * Every way reaching a server can go wrong, said in one sentence that names the server and
 * tells a person (and the model) what happened. Server-supplied text is quoted, shortened, and
 * never mistaken for our own words.
 */

const MAX_QUOTE = 300;

/**
 * A server that needs the person to sign in (OAuth) before it answers: not a failure of the
 * call, which waits for them (`awaiting_sign_in`) and runs once they have. The one shape for
 * it: a call's outcome carries it, and the OAuth provider raises it as `SignInRequired`.
 */
export interface NeedsSignIn {
  kind: 'needs_sign_in';
  serverId: string;
  serverName: string;
  /** Scopes the server asked for (from `WWW-Authenticate`), when it said. */
  scopes?: string[];
  reason: SignInReason;
}

/**
 * Thrown by whatever supplies a server's credential (the OAuth provider) when there is none it
 * can use without the person. The gateway finds it anywhere in an error's cause chain (the SDK
 * may wrap it) and reports `needs_sign_in` instead of a failure.
 */
export class SignInRequired extends Error {
  readonly needs: NeedsSignIn;
  constructor(needs: Omit<NeedsSignIn, 'kind'>) {
    super(`${needs.serverName} needs you to sign in (${needs.reason}).`);
    this.name = 'SignInRequired';
    this.needs = { kind: 'needs_sign_in', ...needs };
  }
}

/** The sign-in a failure stands for, if any. */
export function signInRequiredIn(error: unknown): NeedsSignIn | undefined {
  let cur: unknown = error;
  for (let i = 0; i < 6 && cur; i++) {
    if (cur instanceof SignInRequired) return cur.needs;
    const e = cur as { cause?: unknown; data?: { cause?: unknown } };
    cur = e.cause ?? e.data?.cause;
  }
  return undefined;
}

export function quote(text: string): string {
  // Our sentences end with their own period.
  const flat = text.replace(/\s+/g, ' ').trim().replace(/\.+$/, '');
  return flat.length > MAX_QUOTE ? `${flat.slice(0, MAX_QUOTE)}…` : flat;
}

/** Only the origin: a path or query string may carry a token. */
export function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'its URL';
  }
}

const NETWORK_CODES: Record<string, string> = {
  ECONNREFUSED: 'the connection was refused',
  // A name that does not resolve and one the URL guard refused once resolved read the same (NOT_PUBLIC).
  ENOTFOUND: NOT_PUBLIC,
  EURLREFUSED: NOT_PUBLIC,
  EAI_AGAIN: 'the host name could not be resolved right now',
  ECONNRESET: 'the connection was reset',
  EHOSTUNREACH: 'the host is unreachable',
  ETIMEDOUT: 'the connection timed out',
  UND_ERR_SOCKET: 'the connection was cut',
  UND_ERR_CONNECT_TIMEOUT: 'the connection timed out',
  UND_ERR_HEADERS_TIMEOUT: 'it did not send response headers in time',
};

/** A network-level reason anywhere in the `cause` chain (fetch wraps it once or twice). */
function networkReason(error: unknown): string | undefined {
  let cur: unknown = error;
  for (let i = 0; i < 6 && cur; i++) {
    const e = cur as { code?: unknown; message?: unknown; cause?: unknown; data?: { cause?: unknown } };
    if (typeof e.code === 'string' && NETWORK_CODES[e.code]) return NETWORK_CODES[e.code];
    if (e instanceof TypeError && e.message === 'fetch failed') {
      const inner = e.cause as { code?: string; message?: string } | undefined;
      if (inner?.code && NETWORK_CODES[inner.code]) return NETWORK_CODES[inner.code];
      return inner?.message ? quote(inner.message) : 'the request failed';
    }
    cur = e.cause ?? (e as { data?: { cause?: unknown } }).data?.cause;
  }
  return undefined;
}

/** The first error of this class in the `cause` chain (the SDK wraps what an auth provider throws). */
export function findInChain<T>(error: unknown, type: abstract new (...args: never[]) => T): T | undefined {
  let cur: unknown = error;
  for (let i = 0; i < 6 && cur; i++) {
    if (cur instanceof type) return cur;
    const e = cur as { cause?: unknown; data?: { cause?: unknown } };
    cur = e.cause ?? e.data?.cause;
  }
  return undefined;
}

/** What kind of failure reaching a server was, as the servers page shows it. */
export type FailureKind = 'unreachable' | 'needs_sign_in' | 'protocol_error';

/**
 * Unreachable: nothing usable answered (network, refused URL, timeout, 404, 5xx, 429).
 * Needs sign-in: the server wants credentials (401, 403). Protocol error: something answered,
 * but not as an MCP server should.
 */
export function classifyFailure(error: unknown): FailureKind {
  if (signInRequiredIn(error)) return 'needs_sign_in';
  if (error instanceof RemoteServersDisabled) return 'unreachable';
  if (findInChain(error, NotOAuthProtected)) return 'needs_sign_in';
  if (findInChain(error, RefreshFailed)) return 'unreachable';
  if (error instanceof SdkHttpError) {
    if (error.status === 401 || error.status === 403) return 'needs_sign_in';
    if (error.status === 404 || error.status === 408 || error.status === 429 || error.status >= 500) return 'unreachable';
    return 'protocol_error';
  }
  if (error instanceof ProtocolError) return 'protocol_error';
  if (isTimeout(error) || networkReason(error) !== undefined || hasRefusal(error)) return 'unreachable';
  if (error instanceof SdkError && error.code === SdkErrorCode.ConnectionClosed) return 'unreachable';
  return 'protocol_error';
}

function hasRefusal(error: unknown): boolean {
  for (let cur: unknown = error, i = 0; cur && i < 6; i++) {
    if ((cur as { code?: unknown }).code === 'EURLREFUSED' || (cur as Error).name === 'UrlRefused' || cur instanceof UrlRefused)
      return true;
    cur = (cur as { cause?: unknown }).cause ?? (cur as { data?: { cause?: unknown } }).data?.cause;
  }
  return false;
}

export function isTimeout(error: unknown): boolean {
  return error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout;
}

/**
 * @param serverName display name, for example "Notes"
 * @param action what we were doing, for example `call "search"` or `list its tools`
 */
export function describeFailure(serverName: string, url: string, action: string, error: unknown): string {
  if (error instanceof RemoteServersDisabled) return `Could not ${action}: ${error.message}`;
  const notOAuth = findInChain(error, NotOAuthProtected);
  if (notOAuth) return `Could not ${action}: ${notOAuth.message}`;
  const refresh = findInChain(error, RefreshFailed);
  if (refresh) {
    const why = `${refresh.message}; its authorization server did not answer`;
    return `Could not ${action}: ${serverName}'s sign-in could not be renewed (${why}). Try again.`;
  }
  const who = `${serverName} (${originOf(url)})`;
  const network = error instanceof SdkHttpError || error instanceof ProtocolError ? undefined : networkReason(error);
  if (network) return `Could not reach ${who} to ${action}: ${network}.`;
  if (error instanceof SdkHttpError) {
    const status = error.status;
    const body = typeof error.data?.text === 'string' && error.data.text ? `: ${quote(error.data.text)}` : '';
    if (status === 401 || status === 403) {
      return (
        `${who} refused to ${action}: HTTP ${status} (${status === 401 ? 'not signed in' : 'not allowed'}). Check the server's ` +
        `credentials.`
      );
    }
    return `${who} answered HTTP ${status} when asked to ${action}${body}.`;
  }
  if (error instanceof ProtocolError) {
    return `${who} returned an error when asked to ${action}: ${quote(error.message)} (JSON-RPC error ${error.code}).`;
  }
  if (error instanceof SdkError) {
    switch (error.code) {
      case SdkErrorCode.ConnectionClosed:
        return `${who} closed the connection before it finished when asked to ${action}.`;
      case SdkErrorCode.EraNegotiationFailed:
        return `Could not connect to ${who} to ${action}: ${quote(error.message)}.`;
      case SdkErrorCode.InvalidResult:
        return `${who} sent a malformed reply when asked to ${action}: ${quote(error.message)}.`;
      default:
        return `${who} could not ${action}: ${quote(error.message)}.`;
    }
  }
  if (error instanceof SyntaxError) {
    return `${who} sent a reply that is not valid MCP (JSON-RPC) when asked to ${action}: ${quote(error.message)}.`;
  }
  // The SDK checks each message it reads against its schema and throws the schema's error as is:
  // its message is a JSON dump of issues, which says nothing to a person.
  if (isSchemaError(error)) return `${who} sent a reply that is not valid MCP (JSON-RPC) when asked to ${action}.`;
  const message = error instanceof Error ? error.message : String(error);
  return `${who} could not ${action}: ${quote(message)}.`;
}

/**
 * A failure message about this server, safe to store and to show: the server's own words may echo
 * what was sent to it (an API key in a header), so its header values, bearer tokens and
 * credential-like query parameters are redacted, as the servers page's `lastError` is.
 */
export function redactForServer(server: Pick<McpServerConfig, 'headers'>, message: string): string {
  return redactSecrets(message, Object.values(server.headers ?? {}));
}

/** A schema check's error (zod, as the SDK throws it when a message is not JSON-RPC); by name, since the SDK may carry its own copy. */
function isSchemaError(error: unknown): boolean {
  return error instanceof Error && error.name === 'ZodError' && Array.isArray((error as { issues?: unknown }).issues);
}
