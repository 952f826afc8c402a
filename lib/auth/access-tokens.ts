import { randomBytes } from 'node:crypto';

import type { Db } from '@/db/connection';
import {
  findAccessTokenWithOwner,
  tokenProfileOf,
  tokenTaintOf,
  touchAccessToken,
  type AccessTokenRow,
  type TokenOwner,
} from '@/db/queries/access-tokens';
import { findOAuthAccessToken } from '@/db/queries/oauth-server';
import type { StoredTaint, StoredTokenProfile } from '@/db/stored-json';
import { hashRandomToken } from '@/lib/random-token';

/**
 * Personal access tokens (issue 25): `sbp_` + 32 random bytes in base64url. The prefix makes a
 * leaked token recognisable (secret scanners, logs, a person reading a config file) and lets
 * `authenticateBearer` refuse anything else before touching the database.
 */
export const ACCESS_TOKEN_PREFIX = 'sbp_';
const TOKEN_BYTES = 32;
// 32 bytes are 43 base64url characters without padding.
const TOKEN_SHAPE = new RegExp(`^${ACCESS_TOKEN_PREFIX}[A-Za-z0-9_-]{43}$`);
/** How much of the token the list shows: the prefix and 4 random characters, 24 bits, not enough to guess the rest. */
const SHOWN_CHARS = ACCESS_TOKEN_PREFIX.length + 4;

/**
 * A recorded use is refreshed at most once a minute: every request of a busy script would
 * otherwise write the row, and "last used" is read by a person, to whom a minute is exact enough.
 */
export const ACCESS_TOKEN_LAST_USED_PRECISION_MS = 60_000;

/**
 * The access tokens Switchboard's authorization server gives connected MCP clients
 * (lib/oauth-server): short-lived, `sba_` + 32 random bytes; their refresh tokens are `sbr_`.
 * Stored hashed like personal tokens, in `oauth_tokens`.
 */
export const OAUTH_ACCESS_TOKEN_PREFIX = 'sba_';
export const OAUTH_REFRESH_TOKEN_PREFIX = 'sbr_';
const OAUTH_TOKEN_SHAPE = new RegExp(`^${OAUTH_ACCESS_TOKEN_PREFIX}[A-Za-z0-9_-]{43}$`);

/** A new random secret with this prefix and its hash (personal tokens, OAuth codes and tokens). */
export function newSecret(prefix: string): { token: string; tokenHash: string } {
  const token = prefix + randomBytes(TOKEN_BYTES).toString('base64url');
  return { token, tokenHash: hashAccessToken(token) };
}

export function newAccessToken(): { token: string; tokenHash: string; prefix: string } {
  const { token, tokenHash } = newSecret(ACCESS_TOKEN_PREFIX);
  return { token, tokenHash, prefix: token.slice(0, SHOWN_CHARS) };
}

/** Only this hash of a token is stored (lib/random-token.ts says why plain SHA-256 is enough). */
export const hashAccessToken = hashRandomToken;

export const BEARER_FAILURES = ['missing', 'malformed', 'unknown', 'expired', 'revoked', 'user_gone'] as const;
export type BearerFailure = (typeof BEARER_FAILURES)[number];

/** The token a request was authenticated with, as `/mcp` needs it: never its hash. */
export interface BearerToken {
  /** The `access_tokens` row: a personal token, or the grant of a connected OAuth client. */
  id: string;
  kind: 'access_token' | 'oauth_client';
  /** The token's name, or the connected client's name (as its metadata or registration says). */
  name: string;
  /** What it exposes (lib/gateway/profile.ts). */
  profile: StoredTokenProfile;
  /** Its standing context's taint (lib/gateway/taint.ts), or null. */
  tainted: StoredTaint | null;
}

export type BearerResult =
  { ok: true; user: TokenOwner; tokenId: string; token: BearerToken } | { ok: false; reason: BearerFailure; message: string };

const MESSAGES: Record<BearerFailure, string> = {
  missing: 'Send a personal access token as "Authorization: Bearer sbp_…" (create one on the Account page).',
  malformed: `The Authorization header is not "Bearer" followed by a personal access token (${ACCESS_TOKEN_PREFIX}…).`,
  unknown: 'This personal access token is not known: check that it was copied whole, or create a new one on the Account page.',
  expired: 'This personal access token has expired: create a new one on the Account page.',
  revoked: 'This personal access token was revoked: create a new one on the Account page.',
  user_gone: 'The account of this personal access token no longer exists.',
};

/** The same failures for a connected client's access token: the remedy is to connect again, not a new token. */
const OAUTH_MESSAGES: Record<BearerFailure, string> = {
  ...MESSAGES,
  unknown: 'This access token is not known: authorize the client again.',
  expired: 'This access token has expired: refresh it, or authorize the client again.',
  revoked: 'This client was disconnected in Switchboard: authorize it again.',
  user_gone: 'The account this client was connected to no longer exists.',
};

function failure(reason: BearerFailure): BearerResult {
  return { ok: false, reason, message: MESSAGES[reason] };
}

/**
 * Who sends this request, by its `Authorization: Bearer …` header — a personal access token
 * (`sbp_`) or a connected client's OAuth access token (`sba_`): the user and the token,
 * or why not, as data (the caller picks the status; `/mcp` will answer 401 with the message).
 * A use is recorded on the token (throttled, ACCESS_TOKEN_LAST_USED_PRECISION_MS), unless
 * `recordUse` is false: a check again of a request already let in (an open listen stream,
 * lib/gateway/listen-streams.ts) is not a new use.
 */
export async function authenticateBearer(
  db: Db,
  req: Request,
  now = new Date(),
  opts: { recordUse?: boolean } = {},
): Promise<BearerResult> {
  const header = req.headers.get('authorization');
  if (!header) return failure('missing');
  const match = /^Bearer +(\S+) *$/i.exec(header);
  const recordUse = opts.recordUse !== false;
  if (match && OAUTH_TOKEN_SHAPE.test(match[1]!)) return authenticateOAuth(db, match[1]!, now, recordUse);
  if (!match || !TOKEN_SHAPE.test(match[1]!)) return failure('malformed');
  const found = await findAccessTokenWithOwner(db, hashAccessToken(match[1]!));
  if (!found) return failure('unknown');
  const row = found.token;
  if (row.revokedAt) return failure('revoked');
  if (row.expiresAt && row.expiresAt.getTime() <= now.getTime()) return failure('expired');
  return authenticated(db, row, found.owner, { kind: 'access_token', name: row.name }, now, recordUse, failure);
}

/**
 * A connected client's access token (`sba_`): live while it has not expired and its grant (the
 * `access_tokens` row the person's consent made) is not revoked — revoking the client on the
 * Account page, or a refresh token replayed, cuts it off at its next request.
 */
async function authenticateOAuth(db: Db, token: string, now: Date, recordUse: boolean): Promise<BearerResult> {
  const fail = (reason: BearerFailure): BearerResult => ({ ok: false, reason, message: OAUTH_MESSAGES[reason] });
  const found = await findOAuthAccessToken(db, hashAccessToken(token));
  if (!found) return fail('unknown');
  if (found.grant.revokedAt) return fail('revoked');
  if (found.expiresAt.getTime() <= now.getTime()) return fail('expired');
  return authenticated(db, found.grant, found.owner, { kind: 'oauth_client', name: found.clientName }, now, recordUse, fail);
}

async function authenticated(
  db: Db,
  row: AccessTokenRow,
  user: TokenOwner | null,
  client: Pick<BearerToken, 'kind' | 'name'>,
  now: Date,
  recordUse: boolean,
  fail: (reason: BearerFailure) => BearerResult,
): Promise<BearerResult> {
  // Read with the token (one statement); the row cascades with its user, so this is a race with the account's deletion only.
  if (!user) return fail('user_gone');
  if (recordUse && (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() >= ACCESS_TOKEN_LAST_USED_PRECISION_MS)) {
    await touchAccessToken(db, row.id, now, new Date(now.getTime() - ACCESS_TOKEN_LAST_USED_PRECISION_MS));
  }
  return {
    ok: true,
    user: { id: user.id, email: user.email, name: user.name, plan: user.plan, toolsRev: user.toolsRev },
    tokenId: row.id,
    token: { id: row.id, ...client, profile: tokenProfileOf(row), tainted: tokenTaintOf(row) },
  };
}
