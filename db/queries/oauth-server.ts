import { and, desc, eq, isNotNull, isNull } from 'drizzle-orm';

import type { Db } from '../connection';
import { accessTokens, oauthClients, oauthCodes, oauthTokens, users } from '../schema';
import { parseStored, storedTokenProfile, type StoredTokenProfile } from '../stored-json';
import type { OAuthClientKind } from '../vocabulary';
import { TOKEN_OWNER_COLUMNS } from './access-tokens';

/**
 * Switchboard's own authorization server (issue 25, lib/oauth-server): its clients, codes and
 * tokens. Every secret is stored as its SHA-256 only; lookups are by hash.
 */

export type OAuthClientRow = typeof oauthClients.$inferSelect;

export async function findOAuthClient(db: Db, clientId: string): Promise<OAuthClientRow | null> {
  const rows = await db.select().from(oauthClients).where(eq(oauthClients.clientId, clientId)).limit(1);
  return rows[0] ?? null;
}

/** Stores a client as its metadata document says now (a fresh fetch replaces the cached one). */
export async function saveMetadataClient(
  db: Db,
  input: { clientId: string; name: string; clientUri: string | null; redirectUris: string[]; fetchedAt: Date },
): Promise<OAuthClientRow> {
  const values = { ...input, kind: 'metadata_document' as const };
  const [row] = await db
    .insert(oauthClients)
    .values(values)
    .onConflictDoUpdate({
      target: oauthClients.clientId,
      set: { name: input.name, clientUri: input.clientUri, redirectUris: input.redirectUris, fetchedAt: input.fetchedAt },
      // A registered client's id never looks like a URL, but a row of another kind is never overwritten.
      setWhere: eq(oauthClients.kind, 'metadata_document'),
    })
    .returning();
  if (!row) throw new Error(`client_id ${input.clientId} is held by a registered client`);
  return row;
}

export async function insertRegisteredClient(
  db: Db,
  input: { clientId: string; name: string; clientUri: string | null; redirectUris: string[] },
): Promise<OAuthClientRow> {
  const kind: OAuthClientKind = 'registered';
  const [row] = await db
    .insert(oauthClients)
    .values({ ...input, kind })
    .returning();
  return row!;
}

export async function insertOAuthCode(
  db: Db,
  input: {
    codeHash: string;
    clientId: string;
    userId: string;
    redirectUri: string;
    codeChallenge: string;
    resource: string;
    profile: StoredTokenProfile;
    expiresAt: Date;
  },
): Promise<void> {
  await db.insert(oauthCodes).values(input);
}

export type OAuthCodeRow = typeof oauthCodes.$inferSelect;

/**
 * Takes the code for one exchange: marks it used and returns it, or says it was used already
 * (with the grant the first exchange made, to revoke) or is not known. One statement decides, so
 * two parallel exchanges cannot both win.
 */
export async function takeOAuthCode(
  db: Db,
  codeHash: string,
  now: Date,
): Promise<
  { kind: 'taken'; code: OAuthCodeRow & { profile: StoredTokenProfile } } | { kind: 'used'; grantId: string | null } | { kind: 'unknown' }
> {
  const [taken] = await db
    .update(oauthCodes)
    .set({ usedAt: now })
    .where(and(eq(oauthCodes.codeHash, codeHash), isNull(oauthCodes.usedAt)))
    .returning();
  if (taken) return { kind: 'taken', code: { ...taken, profile: profileOf(taken.id, taken.profile, 'oauth_codes.profile') } };
  const [used] = await db.select({ grantId: oauthCodes.grantId }).from(oauthCodes).where(eq(oauthCodes.codeHash, codeHash)).limit(1);
  return used ? { kind: 'used', grantId: used.grantId } : { kind: 'unknown' };
}

export interface NewTokenPair {
  accessHash: string;
  accessExpiresAt: Date;
  refreshHash: string;
  refreshExpiresAt: Date;
}

function tokenRows(grantId: string, pair: NewTokenPair) {
  return [
    { grantId, kind: 'access' as const, tokenHash: pair.accessHash, expiresAt: pair.accessExpiresAt },
    { grantId, kind: 'refresh' as const, tokenHash: pair.refreshHash, expiresAt: pair.refreshExpiresAt },
  ];
}

/**
 * A code exchanged: the grant (the connected client, an `access_tokens` row with the profile the
 * person picked) and its first access and refresh tokens, in one transaction, the code pointing
 * at the grant so that a replay of it can revoke it.
 */
export async function insertGrant(
  db: Db,
  input: { codeId: string; userId: string; name: string; oauthClientId: string; profile: StoredTokenProfile },
  pair: NewTokenPair,
): Promise<string> {
  return db.transaction(async (tx) => {
    const [grant] = await tx
      .insert(accessTokens)
      .values({ userId: input.userId, name: input.name, oauthClientId: input.oauthClientId, profile: input.profile })
      .returning({ id: accessTokens.id });
    await tx.insert(oauthTokens).values(tokenRows(grant!.id, pair));
    await tx.update(oauthCodes).set({ grantId: grant!.id }).where(eq(oauthCodes.id, input.codeId));
    return grant!.id;
  });
}

/** Revokes a grant (and so every token of it); true when it was live. */
export async function revokeGrant(db: Db, grantId: string, now: Date): Promise<boolean> {
  const rows = await db
    .update(accessTokens)
    .set({ revokedAt: now })
    .where(and(eq(accessTokens.id, grantId), isNull(accessTokens.revokedAt)))
    .returning({ id: accessTokens.id });
  return rows.length > 0;
}

export type RefreshOutcome =
  | { kind: 'rotated'; grantId: string }
  | { kind: 'reused'; grantId: string }
  | { kind: 'invalid'; why: 'unknown' | 'expired' | 'revoked' | 'wrong_client' };

/**
 * One refresh: the refresh token is marked used and a new pair stored, in one transaction. A
 * refresh token already used is a replay — someone holds a copy — so the whole grant (the token
 * family) is revoked. `clientRowId` must be the grant's client.
 */
export async function rotateRefreshToken(
  db: Db,
  refreshHash: string,
  clientRowId: string,
  pair: NewTokenPair,
  now: Date,
): Promise<RefreshOutcome> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .select({ id: oauthTokens.id, usedAt: oauthTokens.usedAt, expiresAt: oauthTokens.expiresAt, grant: accessTokens })
      .from(oauthTokens)
      .innerJoin(accessTokens, eq(accessTokens.id, oauthTokens.grantId))
      .where(and(eq(oauthTokens.tokenHash, refreshHash), eq(oauthTokens.kind, 'refresh')))
      .for('update')
      .limit(1);
    if (!row) return { kind: 'invalid', why: 'unknown' };
    if (row.grant.oauthClientId !== clientRowId) return { kind: 'invalid', why: 'wrong_client' };
    if (row.grant.revokedAt) return { kind: 'invalid', why: 'revoked' };
    if (row.usedAt) {
      await tx.update(accessTokens).set({ revokedAt: now }).where(eq(accessTokens.id, row.grant.id));
      return { kind: 'reused', grantId: row.grant.id };
    }
    if (row.expiresAt.getTime() <= now.getTime()) return { kind: 'invalid', why: 'expired' };
    await tx.update(oauthTokens).set({ usedAt: now }).where(eq(oauthTokens.id, row.id));
    await tx.insert(oauthTokens).values(tokenRows(row.grant.id, pair));
    return { kind: 'rotated', grantId: row.grant.id };
  });
}

/**
 * An access token of a connected client with its grant, client and owner, whatever their state
 * (the caller judges), in one statement: `/mcp` authenticates every request with it.
 */
export async function findOAuthAccessToken(db: Db, tokenHash: string) {
  const [row] = await db
    .select({
      id: oauthTokens.id,
      expiresAt: oauthTokens.expiresAt,
      grant: accessTokens,
      clientName: oauthClients.name,
      owner: TOKEN_OWNER_COLUMNS,
    })
    .from(oauthTokens)
    .innerJoin(accessTokens, eq(accessTokens.id, oauthTokens.grantId))
    .innerJoin(oauthClients, eq(oauthClients.id, accessTokens.oauthClientId))
    .leftJoin(users, eq(users.id, accessTokens.userId))
    .where(and(eq(oauthTokens.tokenHash, tokenHash), eq(oauthTokens.kind, 'access')))
    .limit(1);
  return row ?? null;
}

/** A token of any kind by hash, with the client its grant belongs to (RFC 7009 revocation). */
export async function findOAuthTokenForRevocation(db: Db, tokenHash: string) {
  const [row] = await db
    .select({ id: oauthTokens.id, kind: oauthTokens.kind, grantId: oauthTokens.grantId, oauthClientId: accessTokens.oauthClientId })
    .from(oauthTokens)
    .innerJoin(accessTokens, eq(accessTokens.id, oauthTokens.grantId))
    .where(eq(oauthTokens.tokenHash, tokenHash))
    .limit(1);
  return row ?? null;
}

/** Ends one access token at once (its grant lives on). */
export async function expireOAuthToken(db: Db, id: string, now: Date): Promise<void> {
  await db.update(oauthTokens).set({ expiresAt: now }).where(eq(oauthTokens.id, id));
}

/** The person's connected clients that are not revoked, newest first. */
export async function listConnectedClients(db: Db, userId: string) {
  const rows = await db
    .select({
      id: accessTokens.id,
      name: oauthClients.name,
      clientId: oauthClients.clientId,
      clientKind: oauthClients.kind,
      redirectUris: oauthClients.redirectUris,
      createdAt: accessTokens.createdAt,
      lastUsedAt: accessTokens.lastUsedAt,
      profile: accessTokens.profile,
    })
    .from(accessTokens)
    .innerJoin(oauthClients, eq(oauthClients.id, accessTokens.oauthClientId))
    .where(and(eq(accessTokens.userId, userId), isNotNull(accessTokens.oauthClientId), isNull(accessTokens.revokedAt)))
    .orderBy(desc(accessTokens.createdAt), desc(accessTokens.id));
  return rows.map((r) => ({ ...r, profile: profileOf(r.id, r.profile, 'access_tokens.profile') }));
}

function profileOf(id: string, value: unknown, column: string): StoredTokenProfile {
  return parseStored(storedTokenProfile, value, column, id) ?? { v: 1, tools: [] };
}
