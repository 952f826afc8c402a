import { isOneOf, TRUST_LEVELS, type Trust } from '@/db/vocabulary';
import { readConfig, type Env } from '@/lib/config';
import { AppError } from '@/lib/http/errors';
import { BUILTIN_SERVERS } from '@/lib/mcp/builtin';
import { NAMESPACE_MAX, namespaceProblem } from '@/lib/mcp/naming';
import { urlProblem } from '@/lib/mcp/url-guard';

/**
 * The fields of a user-added server, each checked with a message that says what is wrong and
 * what is allowed. Pure: adding, editing and importing all go through these.
 */

export const NAME_MAX = 80;
export const URL_MAX = 2048;
export const TIMEOUT_MIN_MS = 1_000;
export const TIMEOUT_MAX_MS = 300_000;
export const DEFAULT_TIMEOUT_MS = 60_000;
export const MAX_HEADERS = 20;
export const HEADER_VALUE_MAX = 8 * 1024;
export const CLIENT_ID_MAX = 2048;
export const CLIENT_SECRET_MAX = 4096;

/** RFC 7230 `token`: the characters a header name may use. */
const HEADER_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/**
 * Headers a person may not set: the transport's own (length, framing, host), and the ones the
 * MCP client manages itself (a wrong one would break the protocol, not add a credential).
 */
const RESERVED_HEADERS = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
  'proxy-connection',
  'content-type',
  'accept',
  'accept-encoding',
  'origin',
  'mcp-session-id',
  'mcp-protocol-version',
  'last-event-id',
]);

/** A field that failed; `field` names it the way the API does (e.g. `headers.X-Api-Key`). */
export class FieldProblem extends AppError {
  constructor(field: string, message: string) {
    super('bad_request', 'server', message, field);
  }
}

const BUILTIN_NAMESPACES = new Map(BUILTIN_SERVERS.map((s) => [s.namespace, s.displayName]));

export function allowLoopback(env?: Env): boolean {
  return readConfig(env).MCP_ALLOW_LOOPBACK;
}

export function checkName(raw: unknown): string {
  if (typeof raw !== 'string') throw new FieldProblem('name', 'Give the server a name.');
  const name = raw.trim();
  if (!name) throw new FieldProblem('name', 'Give the server a name.');
  if (name.length > NAME_MAX) throw new FieldProblem('name', `The name must be at most ${NAME_MAX} characters (got ${name.length}).`);
  if (/[\u0000-\u001f\u007f]/.test(name)) throw new FieldProblem('name', 'The name must not contain control characters or line breaks.');
  return name;
}

/** Why a namespace cannot name a user-added server; null when it can. */
export function userNamespaceProblem(namespace: string): string | null {
  const builtin = BUILTIN_NAMESPACES.get(namespace);
  if (builtin) return `"${namespace}" is used by the built-in server ${builtin}`;
  return namespaceProblem(namespace);
}

export function checkNamespace(raw: unknown): string {
  if (typeof raw !== 'string') throw new FieldProblem('namespace', 'The namespace must be text.');
  const problem = userNamespaceProblem(raw);
  if (problem) throw new FieldProblem('namespace', `The namespace ${problem}.`);
  return raw;
}

/**
 * A namespace made from the name: lower-case, runs of anything else turned into one `-`, cut
 * to fit. `taken` says which are in use; a suffix (-2, -3…) makes it unique.
 */
export function namespaceFromName(name: string, taken: (ns: string) => boolean): string {
  const base =
    name
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '') // accents go, their letters stay
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, NAMESPACE_MAX)
      .replace(/-+$/, '') || 'server';
  for (let i = 1; ; i++) {
    const suffix = i === 1 ? '' : `-${i}`;
    const candidate = `${base.slice(0, NAMESPACE_MAX - suffix.length).replace(/-+$/, '')}${suffix}`;
    if (userNamespaceProblem(candidate) === null && !taken(candidate)) return candidate;
  }
}

export function checkUrl(raw: unknown, opts: { allowLoopback: boolean }): string {
  if (typeof raw !== 'string' || !raw.trim()) throw new FieldProblem('url', "Give the server's URL (https://…).");
  const url = raw.trim();
  if (url.length > URL_MAX) throw new FieldProblem('url', `The URL must be at most ${URL_MAX} characters (got ${url.length}).`);
  const problem = urlProblem(url, { allowLoopback: opts.allowLoopback });
  if (problem) throw new FieldProblem('url', `Switchboard cannot use this URL: ${problem}.`);
  return new URL(url).toString();
}

export function checkTrust(raw: unknown): Trust {
  if (typeof raw !== 'string' || !isOneOf(TRUST_LEVELS, raw)) {
    throw new FieldProblem('trust', `Trust must be one of ${TRUST_LEVELS.map((t) => `"${t}"`).join(', ')}.`);
  }
  return raw;
}

/** Whether the person believes what the server returns (lib/agent/taint.ts): a plain boolean, never "yes" or 1. */
export function checkTrustContent(raw: unknown): boolean {
  if (typeof raw !== 'boolean') {
    throw new FieldProblem('trustContent', `trustContent must be true or false (got ${JSON.stringify(raw) ?? 'nothing'}).`);
  }
  return raw;
}

/** Whether its tools' interactive views are shown (MCP Apps): a plain boolean. */
export function checkShowViews(raw: unknown): boolean {
  if (typeof raw !== 'boolean') {
    throw new FieldProblem('showViews', `showViews must be true or false (got ${JSON.stringify(raw) ?? 'nothing'}).`);
  }
  return raw;
}

export function checkTimeout(raw: unknown): number {
  if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < TIMEOUT_MIN_MS || raw > TIMEOUT_MAX_MS) {
    throw new FieldProblem(
      'timeoutMs',
      `The timeout must be a whole number of milliseconds from ${TIMEOUT_MIN_MS} to ${TIMEOUT_MAX_MS} (got ${JSON.stringify(raw)}).`,
    );
  }
  return raw;
}

/** Why a header name cannot be used; null when it can. */
export function headerNameProblem(name: string): string | null {
  if (!name) return 'a header name must not be empty';
  if (!HEADER_TOKEN.test(name)) return `"${name}" is not a valid header name (letters, digits and !#$%&'*+-.^_\`|~ only)`;
  const lower = name.toLowerCase();
  if (RESERVED_HEADERS.has(lower) || lower.startsWith('proxy-') || lower.startsWith('sec-')) {
    return `"${name}" is set by Switchboard itself and cannot be configured`;
  }
  return null;
}

/**
 * Header credentials: name → value. A value of `null` means "keep the stored value" (the page
 * never sees values, so an edit that keeps a header sends null); `keep` holds the names that
 * may be kept.
 */
export function checkHeaders(raw: unknown, keep: ReadonlySet<string> = new Set()): Record<string, string | null> {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new FieldProblem('headers', 'Headers must be an object of header name → value.');
  }
  const entries = Object.entries(raw as Record<string, unknown>);
  if (entries.length > MAX_HEADERS) throw new FieldProblem('headers', `At most ${MAX_HEADERS} headers (got ${entries.length}).`);
  const seen = new Set<string>();
  const out: Record<string, string | null> = {};
  for (const [name, value] of entries) {
    const field = `headers.${name}`;
    const problem = headerNameProblem(name);
    if (problem) throw new FieldProblem(field, `Header ${problem}.`);
    const lower = name.toLowerCase();
    if (seen.has(lower)) throw new FieldProblem(field, `The header "${name}" is given twice (header names ignore case).`);
    seen.add(lower);
    if (value === null) {
      if (!keep.has(lower)) throw new FieldProblem(field, `The header "${name}" has no stored value to keep: give its value.`);
      out[name] = null;
      continue;
    }
    if (typeof value !== 'string') throw new FieldProblem(field, `The value of "${name}" must be text.`);
    if (value.length > HEADER_VALUE_MAX)
      throw new FieldProblem(field, `The value of "${name}" is longer than ${HEADER_VALUE_MAX} characters.`);
    if (/[\r\n\u0000]/.test(value)) throw new FieldProblem(field, `The value of "${name}" must not contain line breaks.`);
    if (value.trim() === '') throw new FieldProblem(field, `The value of "${name}" is empty.`);
    out[name] = value.trim();
  }
  return out;
}

export interface OAuthClientInput {
  clientId: string;
  /** undefined: keep the stored one (when the client id is unchanged); null or absent at add: none. */
  clientSecret?: string | null;
}

export function checkOAuthClient(raw: unknown): OAuthClientInput | null {
  if (raw === null) return null;
  if (typeof raw !== 'object' || Array.isArray(raw))
    throw new FieldProblem('oauthClient', 'oauthClient must be { clientId, clientSecret? } or null.');
  const { clientId, clientSecret, ...rest } = raw as Record<string, unknown>;
  const extra = Object.keys(rest)[0];
  if (extra) throw new FieldProblem(`oauthClient.${extra}`, `Unknown field "${extra}" (oauthClient takes clientId and clientSecret).`);
  if (typeof clientId !== 'string' || !clientId.trim()) throw new FieldProblem('oauthClient.clientId', 'Give the OAuth client id.');
  if (clientId.length > CLIENT_ID_MAX)
    throw new FieldProblem('oauthClient.clientId', `The client id must be at most ${CLIENT_ID_MAX} characters.`);
  if (clientSecret !== undefined && clientSecret !== null) {
    if (typeof clientSecret !== 'string' || !clientSecret)
      throw new FieldProblem('oauthClient.clientSecret', 'The client secret must be text.');
    if (clientSecret.length > CLIENT_SECRET_MAX) {
      throw new FieldProblem('oauthClient.clientSecret', `The client secret must be at most ${CLIENT_SECRET_MAX} characters.`);
    }
  }
  return { clientId: clientId.trim(), ...(clientSecret !== undefined && { clientSecret: clientSecret as string | null }) };
}

const ADD_FIELDS = new Set(['name', 'namespace', 'url', 'trust', 'trustContent', 'showViews', 'headers', 'oauthClient', 'timeoutMs']);
const EDIT_FIELDS = new Set([...ADD_FIELDS, 'enabled']);

/** The body must be an object with only known fields (a typo must not be silently ignored). */
export function checkBody(raw: unknown, kind: 'add' | 'edit'): Record<string, unknown> {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    throw new AppError('bad_request', 'body', 'The body must be a JSON object.');
  const known = kind === 'add' ? ADD_FIELDS : EDIT_FIELDS;
  for (const key of Object.keys(raw)) {
    if (!known.has(key)) {
      throw new FieldProblem(key, `Unknown field "${key}" (allowed: ${[...known].join(', ')}).`);
    }
  }
  return raw as Record<string, unknown>;
}
