import { and, asc, desc, eq, inArray, isNotNull, isNull, lt, or, sql, type SQL } from 'drizzle-orm';

import type { Db } from '../connection';
import { runs } from '../schema';
import {
  parseStored,
  storedNameMap,
  storedRunError,
  storedThinking,
  storedUsage,
  type StoredThinking,
  type StoredUsage,
} from '../stored-json';
import { ACTIVE_RUN_STATUSES } from '../vocabulary';
import { utcDay } from './model-usage';
import { rateLimitHit, rowsOf } from './rate-limits';

export type RunRow = typeof runs.$inferSelect;
export type RunPatch = Partial<
  Pick<RunRow, 'status' | 'stopReason' | 'error' | 'step' | 'usage' | 'nameMap' | 'startSeq' | 'leaseOwner' | 'leaseExpiresAt' | 'endedAt'>
>;

/** Every JSON column of a run through its schema (db/stored-json.ts). */
export function parseRunRow(raw: RunRow): RunRow {
  const at = (column: string) => [`runs.${column}`, raw.id] as const;
  return {
    ...raw,
    error: parseStored(storedRunError, raw.error, ...at('error')),
    usage: parseStored(storedUsage, raw.usage, ...at('usage')),
    nameMap: parseStored(storedNameMap, raw.nameMap, ...at('nameMap')),
    thinking: parseStored(storedThinking, raw.thinking, ...at('thinking')),
  };
}

/** Inserts a run; null when the conversation already has an active one (a unique index says so). */
export async function insertRun(
  db: Db,
  input: {
    conversationId: string;
    userId: string;
    sessionId: string | null;
    /** The MCP client whose `switchboard_ask` started it (no session then). */
    clientId?: string | null;
    model: string;
    maxSteps?: number;
    leaseOwner: string;
    leaseExpiresAt: Date;
    thinking?: StoredThinking | null;
  },
): Promise<RunRow | null> {
  const rows = await db.insert(runs).values(input).onConflictDoNothing().returning();
  return rows[0] ? parseRunRow(rows[0]) : null;
}

export async function getRun(db: Db, id: string): Promise<RunRow | null> {
  const rows = await db.select().from(runs).where(eq(runs.id, id)).limit(1);
  return rows[0] ? parseRunRow(rows[0]) : null;
}

export async function getActiveRun(db: Db, conversationId: string): Promise<RunRow | null> {
  const rows = await db
    .select()
    .from(runs)
    .where(and(eq(runs.conversationId, conversationId), inArray(runs.status, [...ACTIVE_RUN_STATUSES])))
    .limit(1);
  return rows[0] ? parseRunRow(rows[0]) : null;
}

/** The turn in progress an MCP client's `switchboard_ask` started for this person, if any (one at a time). */
export async function getActiveRunOfClient(db: Db, userId: string, clientId: string): Promise<RunRow | null> {
  const rows = await db
    .select()
    .from(runs)
    .where(and(eq(runs.userId, userId), eq(runs.clientId, clientId), inArray(runs.status, [...ACTIVE_RUN_STATUSES])))
    .limit(1);
  return rows[0] ? parseRunRow(rows[0]) : null;
}

/** The user's turns in progress, in every conversation (what `activeRunsPerUser` counts). */
export async function countActiveRunsForUser(db: Db, userId: string): Promise<number> {
  const rows = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(runs)
    .where(and(eq(runs.userId, userId), inArray(runs.status, ACTIVE_RUN_STATUSES)));
  return Number(rows[0]?.n ?? 0);
}

export async function getLatestRun(db: Db, conversationId: string): Promise<RunRow | null> {
  const rows = await db.select().from(runs).where(eq(runs.conversationId, conversationId)).orderBy(desc(runs.createdAt)).limit(1);
  return rows[0] ? parseRunRow(rows[0]) : null;
}

/** Each ended run's tokens (the page shows them under the turn's answer), oldest first. */
export async function listEndedRunUsage(db: Db, conversationId: string): Promise<{ id: string; usage: StoredUsage | null }[]> {
  const rows = await db
    .select({ id: runs.id, usage: runs.usage })
    .from(runs)
    .where(and(eq(runs.conversationId, conversationId), isNotNull(runs.endedAt)))
    .orderBy(asc(runs.createdAt));
  return rows.map((r) => ({ id: r.id, usage: parseStored(storedUsage, r.usage, 'runs.usage', r.id) }));
}

/**
 * Compare-and-swap: applies `patch` only if the run is still at `version` and, when an
 * owner is given, still leased to it. Returns the new row, or null if someone else moved it.
 */
export async function updateRunIfVersion(db: Db, id: string, version: number, patch: RunPatch, owner?: string): Promise<RunRow | null> {
  const rows = await runSwap(db, id, version, patch, owner, new Date()).returning();
  return rows[0] ? parseRunRow(rows[0]) : null;
}

/**
 * The same compare-and-swap as updateRunIfVersion, as SQL for a statement that writes more with it
 * (db/queries/events.ts `appendToLog`): it returns what the swap does not decide, the Stop request
 * and the lease (renewals change neither the version nor anything else).
 */
export function runSwapSql(db: Db, id: string, version: number, patch: RunPatch, owner: string | undefined, now: Date): SQL {
  return runSwap(db, id, version, patch, owner, now)
    .returning({ cancelRequestedAt: runs.cancelRequestedAt, leaseExpiresAt: runs.leaseExpiresAt })
    .getSQL();
}

function runSwap(db: Db, id: string, version: number, patch: RunPatch, owner: string | undefined, now: Date) {
  return db
    .update(runs)
    .set({ ...patch, version: version + 1, updatedAt: now })
    .where(and(eq(runs.id, id), eq(runs.version, version), owner ? eq(runs.leaseOwner, owner) : undefined));
}

/**
 * Extends the leases of the given runs, in one statement, where the owner still runs them. Returns
 * the runs renewed; one left out has lost its lease (taken over, or it left `running`), and its
 * drive must stop writing.
 */
export async function renewRunLeases(
  db: Db,
  ids: readonly string[],
  owner: string,
  until: Date,
): Promise<{ id: string; cancelRequestedAt: Date | null }[]> {
  if (ids.length === 0) return [];
  return db
    .update(runs)
    .set({ leaseExpiresAt: until })
    .where(and(inArray(runs.id, [...ids]), eq(runs.leaseOwner, owner), eq(runs.status, 'running')))
    .returning({ id: runs.id, cancelRequestedAt: runs.cancelRequestedAt });
}

/** Takes over a running run whose lease has lapsed; null if it is not lapsed or someone else won. */
export async function claimLapsedRun(db: Db, id: string, owner: string, until: Date, now = new Date()): Promise<RunRow | null> {
  const rows = await db
    .update(runs)
    .set({ leaseOwner: owner, leaseExpiresAt: until, version: sql`${runs.version} + 1`, updatedAt: now })
    .where(and(eq(runs.id, id), eq(runs.status, 'running'), or(isNull(runs.leaseExpiresAt), lt(runs.leaseExpiresAt, now))))
    .returning();
  return rows[0] ? parseRunRow(rows[0]) : null;
}

/** Running runs whose lease lapsed: what the sweep takes over. */
export async function listLapsedRuns(db: Db, now = new Date(), limit = 50): Promise<RunRow[]> {
  const rows = await db
    .select()
    .from(runs)
    .where(and(eq(runs.status, 'running'), or(isNull(runs.leaseExpiresAt), lt(runs.leaseExpiresAt, now))))
    .limit(limit);
  return rows.map(parseRunRow);
}

/** Stop: recorded on the row so that whichever instance runs it sees it. */
export async function requestRunCancel(db: Db, id: string, now = new Date()): Promise<RunRow | null> {
  const rows = await db
    .update(runs)
    .set({ cancelRequestedAt: now })
    .where(and(eq(runs.id, id), inArray(runs.status, [...ACTIVE_RUN_STATUSES])))
    .returning();
  return rows[0] ? parseRunRow(rows[0]) : null;
}

/** Reads a run and locks its row until the transaction ends: deciders and the pausing driver take turns. */
export async function lockRun(tx: Db, id: string): Promise<RunRow | null> {
  const rows = await tx.select().from(runs).where(eq(runs.id, id)).for('update');
  return rows[0] ? parseRunRow(rows[0]) : null;
}

/** What admitting a new turn weighs, read (and the two windows counted) in one statement. */
export interface AdmissionCounts {
  plan: string | null;
  /** The user's turns in progress, the new one included. */
  activeRuns: number;
  modelTokensToday: number;
  /** Hits in the two fixed windows, this one included. */
  messagesInWindow: number;
  runsInWindow: number;
}

const ACTIVE = sql.raw(ACTIVE_RUN_STATUSES.map((s) => `'${s}'`).join(', '));

export async function countForAdmission(
  tx: Db,
  userId: string,
  windows: { messages: { key: string; ms: number }; runs: { key: string; ms: number } },
  now = new Date(),
): Promise<AdmissionCounts> {
  const result = await tx.execute(sql`
    with m as (${rateLimitHit(windows.messages.key, windows.messages.ms, now)}),
      r as (${rateLimitHit(windows.runs.key, windows.runs.ms, now)})
    select
      (select plan from users where id = ${userId}) as plan,
      (select count(*)::int from runs where user_id = ${userId} and status in (${ACTIVE})) as active,
      (select tokens from model_usage where user_id = ${userId} and day = ${utcDay(now)}) as tokens,
      (select count from m) as messages,
      (select count from r) as runs`);
  const row = rowsOf<{ plan: string | null; active: number; tokens: number | string | null; messages: number; runs: number }>(result)[0]!;
  return {
    plan: row.plan,
    activeRuns: Number(row.active),
    modelTokensToday: Number(row.tokens ?? 0),
    messagesInWindow: Number(row.messages),
    runsInWindow: Number(row.runs),
  };
}
