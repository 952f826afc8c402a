import { z } from 'zod';

import type { Db } from '@/db/connection';
import { insertAccessTokenUnderCap, listLiveAccessTokens, revokeAccessToken as revokeRow } from '@/db/queries/access-tokens';
import { ACCESS_TOKEN_EXPIRIES, type AccessTokenExpiry } from '@/db/vocabulary';
import { newAccessToken } from '@/lib/auth/access-tokens';
import { AppError } from '@/lib/http/errors';
import { limitExceeded, limitsFor } from '@/lib/limits';

const DAY_MS = 24 * 60 * 60_000;
const LIFETIME_DAYS: Record<AccessTokenExpiry, number> = { '7d': 7, '30d': 30, '90d': 90, '1y': 365 };
/** What a new token gets when the request does not say: a month, so a forgotten token goes stale by itself. */
export const DEFAULT_ACCESS_TOKEN_EXPIRY: AccessTokenExpiry = '30d';
export const ACCESS_TOKEN_NAME_MAX = 100;

const EXPIRY_WORDS = `must be one of ${ACCESS_TOKEN_EXPIRIES.map((e) => `"${e}"`).join(', ')}, or null for a token that never expires`;

/** `POST /api/account/tokens`: a name to recognise the token by, and how long it lives (null: no expiry). */
export const createAccessTokenSchema = z
  .object({
    name: z
      .string({ error: 'must be text: a name to recognise the token by, e.g. "CI" or "laptop"' })
      .trim()
      .min(1, 'is required: a name to recognise the token by, e.g. "CI" or "laptop"')
      .max(ACCESS_TOKEN_NAME_MAX, `must be at most ${ACCESS_TOKEN_NAME_MAX} characters`),
    expiresIn: z.enum(ACCESS_TOKEN_EXPIRIES, { error: EXPIRY_WORDS }).nullable().default(DEFAULT_ACCESS_TOKEN_EXPIRY),
  })
  .strict();

export type CreateAccessTokenInput = z.infer<typeof createAccessTokenSchema>;

/** A token as the owner's list shows it: never its hash, never the token. */
export interface AccessTokenView {
  id: string;
  name: string;
  /** The first characters of the token (`sbp_` and four more), to tell tokens apart. */
  prefix: string;
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
}

export function accessTokenExpiresAt(choice: AccessTokenExpiry | null, now: Date): Date | null {
  return choice === null ? null : new Date(now.getTime() + LIFETIME_DAYS[choice] * DAY_MS);
}

/**
 * Makes a token for the user. The answer carries the token this once: only its hash is stored,
 * so neither the list nor anything else can show it again.
 */
export async function createAccessToken(
  db: Db,
  user: { id: string; plan: string | null },
  input: CreateAccessTokenInput,
  now = new Date(),
): Promise<{ token: string } & AccessTokenView> {
  const cap = limitsFor(user.plan).accessTokensPerUser;
  const { token, tokenHash, prefix } = newAccessToken();
  const expiresAt = accessTokenExpiresAt(input.expiresIn, now);
  const row = await insertAccessTokenUnderCap(db, { userId: user.id, name: input.name, tokenHash, prefix, expiresAt }, cap, now);
  if (!row) {
    throw limitExceeded('accessTokensPerUser', cap, 'Revoke a token you no longer use before creating another.', user.plan);
  }
  return {
    token,
    id: row.id,
    name: input.name,
    prefix,
    createdAt: row.createdAt.toISOString(),
    expiresAt: expiresAt?.toISOString() ?? null,
    lastUsedAt: null,
  };
}

/** The user's tokens that still work, newest first. */
export async function listAccessTokens(db: Db, userId: string, now = new Date()): Promise<AccessTokenView[]> {
  const rows = await listLiveAccessTokens(db, userId, now);
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    prefix: r.prefix,
    createdAt: r.createdAt.toISOString(),
    expiresAt: r.expiresAt?.toISOString() ?? null,
    lastUsedAt: r.lastUsedAt?.toISOString() ?? null,
  }));
}

/** Revokes one of the user's tokens at once; another person's (or an already revoked) token is not found. */
export async function revokeAccessToken(db: Db, userId: string, id: string, now = new Date()): Promise<{ revoked: true }> {
  if (!(await revokeRow(db, userId, id, now))) throw new AppError('not_found', 'access_token', `No access token with id "${id}".`);
  return { revoked: true };
}
