import { and, count, desc, eq, gt, isNull, lte, or, sql } from 'drizzle-orm';

import type { Db } from '../connection';
import { accessTokens, users } from '../schema';
import {
  EMPTY_TOKEN_PROFILE,
  parseStored,
  storedTaint,
  storedTokenProfile,
  type StoredTaint,
  type StoredTokenProfile,
} from '../stored-json';

export type AccessTokenRow = typeof accessTokens.$inferSelect;

/** What the owner's list shows of a token: never its hash. */
export const ACCESS_TOKEN_LIST_COLUMNS = {
  id: accessTokens.id,
  name: accessTokens.name,
  prefix: accessTokens.prefix,
  createdAt: accessTokens.createdAt,
  expiresAt: accessTokens.expiresAt,
  lastUsedAt: accessTokens.lastUsedAt,
  revokedAt: accessTokens.revokedAt,
  profile: accessTokens.profile,
};

/** Not revoked and not expired at `now`. */
function live(now: Date) {
  return and(isNull(accessTokens.revokedAt), or(isNull(accessTokens.expiresAt), gt(accessTokens.expiresAt, now)));
}

/** A personal access token, not a connected OAuth client's grant (db/queries/oauth-server.ts). */
const personal = isNull(accessTokens.oauthClientId);

/**
 * Stores a new token if the user has fewer than `cap` live ones. The count and the insert run
 * under a lock on the user's row, so two parallel requests cannot both take the last place.
 * Returns null when the cap is reached.
 */
export async function insertAccessTokenUnderCap(
  db: Db,
  input: { userId: string; name: string; tokenHash: string; prefix: string; expiresAt: Date | null; profile: StoredTokenProfile },
  cap: number,
  now = new Date(),
): Promise<{ id: string; createdAt: Date } | null> {
  return db.transaction(async (tx) => {
    await tx.select({ id: users.id }).from(users).where(eq(users.id, input.userId)).for('update');
    const [row] = await tx
      .select({ n: count() })
      .from(accessTokens)
      .where(and(eq(accessTokens.userId, input.userId), personal, live(now)));
    if ((row?.n ?? 0) >= cap) return null;
    const [inserted] = await tx.insert(accessTokens).values(input).returning({ id: accessTokens.id, createdAt: accessTokens.createdAt });
    return inserted!;
  });
}

/** The user's live personal tokens, newest first (revoked and expired ones are not listed, nor connected clients). */
export async function listLiveAccessTokens(db: Db, userId: string, now = new Date()) {
  return db
    .select(ACCESS_TOKEN_LIST_COLUMNS)
    .from(accessTokens)
    .where(and(eq(accessTokens.userId, userId), personal, live(now)))
    .orderBy(desc(accessTokens.createdAt), desc(accessTokens.id));
}

/**
 * The profile of the user's live token or connected client with this id (a run's grants when its
 * `switchboard_ask` started it, lib/consent/stored-grants.ts); null when revoked, expired or not theirs.
 */
export async function liveTokenProfile(db: Db, userId: string, id: string, now = new Date()): Promise<StoredTokenProfile | null> {
  const rows = await db
    .select({ id: accessTokens.id, profile: accessTokens.profile })
    .from(accessTokens)
    .where(and(eq(accessTokens.id, id), eq(accessTokens.userId, userId), live(now)))
    .limit(1);
  return rows[0] ? tokenProfileOf(rows[0]) : null;
}

/** Every token of the user, revoked and expired included, for the account export: no hash. */
export async function listAllAccessTokens(db: Db, userId: string) {
  return db.select(ACCESS_TOKEN_LIST_COLUMNS).from(accessTokens).where(eq(accessTokens.userId, userId)).orderBy(accessTokens.createdAt);
}

/** What a bearer request needs of the token's owner. */
export const TOKEN_OWNER_COLUMNS = { id: users.id, email: users.email, name: users.name, plan: users.plan, toolsRev: users.toolsRev };
export type TokenOwner = Pick<typeof users.$inferSelect, keyof typeof TOKEN_OWNER_COLUMNS>;

/**
 * The token with this hash, whatever its state (the caller tells expired and revoked apart), and
 * its owner, in one statement (the unique index on the hash, then the user's primary key): `/mcp`
 * authenticates every request, so this is on every client call's path. The owner is null only in
 * a race with the account's deletion (the row cascades with its user).
 */
export async function findAccessTokenWithOwner(
  db: Db,
  tokenHash: string,
): Promise<{ token: AccessTokenRow; owner: TokenOwner | null } | null> {
  const rows = await db
    .select({ token: accessTokens, owner: TOKEN_OWNER_COLUMNS })
    .from(accessTokens)
    .leftJoin(users, eq(users.id, accessTokens.userId))
    .where(eq(accessTokens.tokenHash, tokenHash))
    .limit(1);
  return rows[0] ?? null;
}

/**
 * Revokes the user's token if it is theirs and not revoked yet; false when there is no such
 * token of theirs (another person's token is "not found", as a missing one is).
 */
export async function revokeAccessToken(db: Db, userId: string, id: string, now = new Date()): Promise<boolean> {
  const rows = await db
    .update(accessTokens)
    .set({ revokedAt: now })
    .where(and(eq(accessTokens.id, id), eq(accessTokens.userId, userId), isNull(accessTokens.revokedAt)))
    .returning({ id: accessTokens.id });
  return rows.length > 0;
}

/** Records a use, only if the last recorded one is at or before `olderThan` (so parallel requests write once). */
export async function touchAccessToken(db: Db, id: string, now: Date, olderThan: Date): Promise<void> {
  await db
    .update(accessTokens)
    .set({ lastUsedAt: now })
    .where(and(eq(accessTokens.id, id), or(isNull(accessTokens.lastUsedAt), lte(accessTokens.lastUsedAt, olderThan))));
}

/** A token's profile as stored, read through its schema. */
export function tokenProfileOf(row: { id: string; profile: unknown }): StoredTokenProfile {
  return parseStored(storedTokenProfile, row.profile, 'access_tokens.profile', row.id) ?? EMPTY_TOKEN_PROFILE;
}

/** A token's standing taint as stored (lib/gateway/taint.ts), or null. */
export function tokenTaintOf(row: { id: string; tainted: unknown }): StoredTaint | null {
  return row.tainted == null ? null : parseStored(storedTaint, row.tainted, 'access_tokens.tainted', row.id);
}

/**
 * Changes the name and/or profile of the user's live token; false when there is no such token of
 * theirs (another person's, a revoked or an expired one is "not found").
 */
export async function updateAccessToken(
  db: Db,
  userId: string,
  id: string,
  change: { name?: string; profile?: Partial<Omit<StoredTokenProfile, 'v'>> },
  now = new Date(),
): Promise<boolean> {
  const { name, profile } = change;
  const rows = await db
    .update(accessTokens)
    // The profile's fields given replace theirs; the others stay (one statement, no read first).
    .set({
      ...(name !== undefined && { name }),
      ...(profile && { profile: sql`${accessTokens.profile} || ${JSON.stringify(profile)}::jsonb` }),
    })
    .where(and(eq(accessTokens.id, id), eq(accessTokens.userId, userId), live(now)))
    .returning({ id: accessTokens.id });
  return rows.length > 0;
}

/** Marks the token's standing context tainted; only the first mark counts. */
export async function markAccessTokenTainted(db: Db, id: string, taint: StoredTaint): Promise<void> {
  await db
    .update(accessTokens)
    .set({ tainted: taint })
    .where(and(eq(accessTokens.id, id), isNull(accessTokens.tainted)));
}
