import { and, asc, desc, eq, gt, gte, inArray, isNotNull, isNull, lt, lte, notInArray, or, sql } from 'drizzle-orm';

import type { Db } from '../connection';
import { mcpServers, oauthCredentials, oauthFlows } from '../schema';
import { parseStored, storedAuthServer, storedOAuthDiscovery, type StoredAuthServer, type StoredOAuthDiscovery } from '../stored-json';

type CredentialColumns = typeof oauthCredentials.$inferSelect;
export type OAuthCredentialRow = Omit<CredentialColumns, 'authServer'> & { authServer: StoredAuthServer };
type FlowColumns = typeof oauthFlows.$inferSelect;
export type OAuthFlowRow = Omit<FlowColumns, 'discovery'> & { discovery: StoredOAuthDiscovery };

function parseCredential(row: CredentialColumns): OAuthCredentialRow {
  return { ...row, authServer: parseStored(storedAuthServer, row.authServer, 'oauth_credentials.auth_server', row.id)! };
}

function parseFlow(row: FlowColumns): OAuthFlowRow {
  return { ...row, discovery: parseStored(storedOAuthDiscovery, row.discovery, 'oauth_flows.discovery', row.id)! };
}

// ── credentials ─────────────────────────────────────────────────────────────────────────────

export async function getCredential(db: Db, id: string): Promise<OAuthCredentialRow | null> {
  const [row] = await db.select().from(oauthCredentials).where(eq(oauthCredentials.id, id));
  return row ? parseCredential(row) : null;
}

export async function getCredentialByKey(db: Db, userId: string, issuer: string, resource: string): Promise<OAuthCredentialRow | null> {
  const [row] = await db
    .select()
    .from(oauthCredentials)
    .where(and(eq(oauthCredentials.userId, userId), eq(oauthCredentials.issuer, issuer), eq(oauthCredentials.resource, resource)));
  return row ? parseCredential(row) : null;
}

/**
 * What the background refresh (lib/mcp/oauth/refresh-ahead.ts) takes in one tick, soonest to
 * expire first: credentials holding a refresh token, used by a call since `usedSince`, none being
 * refreshed right now and none in `skip` (backed off), whose access token expires after `now` and
 * by `until` and has less time left than has passed since it was issued (`updated_at`, written
 * with the tokens) — past half its lifetime, so a short-lived token (5 minutes) is not renewed on
 * every tick. Already expired ones are left to the next use (its 401 or the skew).
 */
export async function listCredentialsExpiring(
  db: Db,
  window: { now: Date; until: Date; usedSince: Date },
  limit: number,
  skip: string[] = [],
): Promise<{ id: string }[]> {
  const { now, until, usedSince } = window;
  const at = sql`${now.toISOString()}::timestamptz`;
  return db
    .select({ id: oauthCredentials.id })
    .from(oauthCredentials)
    .where(
      and(
        isNotNull(oauthCredentials.tokens),
        eq(oauthCredentials.refreshable, true),
        gte(oauthCredentials.lastUsedAt, usedSince),
        gt(oauthCredentials.expiresAt, now),
        lte(oauthCredentials.expiresAt, until),
        sql`${oauthCredentials.expiresAt} - ${at} < ${at} - ${oauthCredentials.updatedAt}`,
        or(isNull(oauthCredentials.refreshingUntil), lt(oauthCredentials.refreshingUntil, now)),
        skip.length ? notInArray(oauthCredentials.id, skip) : undefined,
      ),
    )
    .orderBy(asc(oauthCredentials.expiresAt), asc(oauthCredentials.id))
    .limit(limit);
}

/** A call asked for the credential's access token: noted at most once per `everyMs`, so a busy credential costs no write per call. */
export async function markCredentialUsed(db: Db, id: string, now: Date, everyMs: number): Promise<void> {
  await db
    .update(oauthCredentials)
    .set({ lastUsedAt: now })
    .where(
      and(
        eq(oauthCredentials.id, id),
        or(isNull(oauthCredentials.lastUsedAt), lt(oauthCredentials.lastUsedAt, new Date(now.getTime() - everyMs))),
      ),
    );
}

/**
 * The user's credentials for any of these resource indicators, the most specific (longest)
 * first, then those holding tokens, then the newest.
 */
export async function findCredentialsForResources(db: Db, userId: string, resources: string[]): Promise<OAuthCredentialRow[]> {
  if (resources.length === 0) return [];
  const rows = await db
    .select()
    .from(oauthCredentials)
    .where(and(eq(oauthCredentials.userId, userId), inArray(oauthCredentials.resource, resources)))
    .orderBy(
      desc(sql`length(${oauthCredentials.resource})`),
      desc(sql`${oauthCredentials.tokens} is not null`),
      desc(oauthCredentials.updatedAt),
    );
  return rows.map(parseCredential);
}

/** Creates the credential row for (user, issuer, resource) or updates its client and server metadata. */
export async function upsertCredentialClient(
  db: Db,
  key: { userId: string; issuer: string; resource: string },
  values: { clientInfo: string; authServer: StoredAuthServer },
): Promise<OAuthCredentialRow> {
  const [row] = await db
    .insert(oauthCredentials)
    .values({ ...key, ...values })
    .onConflictDoUpdate({
      target: [oauthCredentials.userId, oauthCredentials.issuer, oauthCredentials.resource],
      set: { ...values, updatedAt: new Date() },
    })
    .returning();
  return parseCredential(row!);
}

export interface TokenValues {
  tokens: string | null;
  expiresAt: Date | null;
  scope: string | null;
  /** The tokens hold a refresh token. */
  refreshable: boolean;
}

/** Tokens from a completed authorization: they replace whatever was there (and end any refresh claim). */
export async function saveAuthorizedTokens(
  db: Db,
  key: { userId: string; issuer: string; resource: string },
  values: TokenValues & { clientInfo: string; authServer: StoredAuthServer },
): Promise<OAuthCredentialRow> {
  const set = { ...values, wantedScope: null, refreshingUntil: null, version: sql`${oauthCredentials.version} + 1`, updatedAt: new Date() };
  const [row] = await db
    .insert(oauthCredentials)
    .values({ ...key, ...values })
    .onConflictDoUpdate({ target: [oauthCredentials.userId, oauthCredentials.issuer, oauthCredentials.resource], set })
    .returning();
  return parseCredential(row!);
}

/**
 * Claims the right to refresh: only if nobody changed the row since `version` was read and no
 * other claim is live. Returns the row at its new version, or null when someone else holds it.
 */
export async function claimRefresh(
  db: Db,
  id: string,
  version: number,
  leaseMs: number,
  now = new Date(),
): Promise<OAuthCredentialRow | null> {
  const [row] = await db
    .update(oauthCredentials)
    .set({ refreshingUntil: new Date(now.getTime() + leaseMs), version: sql`${oauthCredentials.version} + 1` })
    .where(
      and(
        eq(oauthCredentials.id, id),
        eq(oauthCredentials.version, version),
        or(isNull(oauthCredentials.refreshingUntil), lt(oauthCredentials.refreshingUntil, now)),
      ),
    )
    .returning();
  return row ? parseCredential(row) : null;
}

/** Ends a claim made at `version` with new tokens (or none: the grant is dead), or simply releases it. */
export async function finishRefresh(db: Db, id: string, version: number, values: TokenValues | null): Promise<OAuthCredentialRow | null> {
  const [row] = await db
    .update(oauthCredentials)
    // updated_at is when the tokens were written (the background refresh reads their age from it): a released claim keeps it.
    .set({ ...(values ? { ...values, updatedAt: new Date() } : {}), refreshingUntil: null, version: sql`${oauthCredentials.version} + 1` })
    .where(and(eq(oauthCredentials.id, id), eq(oauthCredentials.version, version)))
    .returning();
  return row ? parseCredential(row) : null;
}

/** Scopes a server asked for beyond what the credential holds (step-up); the next sign-in asks for them. */
export async function setWantedScope(db: Db, id: string, wantedScope: string): Promise<void> {
  await db.update(oauthCredentials).set({ wantedScope, updatedAt: new Date() }).where(eq(oauthCredentials.id, id));
}

export async function deleteCredential(db: Db, id: string): Promise<void> {
  await db.delete(oauthCredentials).where(eq(oauthCredentials.id, id));
}

// ── flows ───────────────────────────────────────────────────────────────────────────────────

/** The id is the caller's: the sealed verifier is bound to it before the row exists (lib/secrets/seal-contexts.ts). */
export type NewOAuthFlow = Omit<typeof oauthFlows.$inferInsert, 'id' | 'usedAt' | 'createdAt'> & { id: string };

export async function insertFlow(db: Db, flow: NewOAuthFlow): Promise<void> {
  await db.insert(oauthFlows).values(flow);
}

export async function findFlowByStateHash(db: Db, stateHash: string): Promise<OAuthFlowRow | null> {
  const [row] = await db.select().from(oauthFlows).where(eq(oauthFlows.stateHash, stateHash));
  return row ? parseFlow(row) : null;
}

/** Marks a flow used; exactly one caller ever gets the row back. */
export async function consumeFlow(db: Db, id: string, now = new Date()): Promise<OAuthFlowRow | null> {
  const [row] = await db
    .update(oauthFlows)
    .set({ usedAt: now })
    .where(and(eq(oauthFlows.id, id), isNull(oauthFlows.usedAt)))
    .returning();
  return row ? parseFlow(row) : null;
}

export async function deleteFlowsForServer(db: Db, userId: string, serverId: string): Promise<void> {
  await db.delete(oauthFlows).where(and(eq(oauthFlows.userId, userId), eq(oauthFlows.serverId, serverId)));
}

export async function deleteExpiredFlows(db: Db, now = new Date()): Promise<void> {
  await db.delete(oauthFlows).where(lt(oauthFlows.expiresAt, now));
}

// ── the server, once signed in ──────────────────────────────────────────────────────────────

/** The person signed in to this server: it is connected (the next listing records the details). */
export async function markServerSignedIn(db: Db, userId: string, serverId: string, now = new Date()): Promise<void> {
  await db
    .update(mcpServers)
    .set({ status: 'connected', lastError: null, checkedAt: now })
    .where(and(eq(mcpServers.id, serverId), eq(mcpServers.userId, userId)));
}
