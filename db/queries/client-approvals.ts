import { and, asc, eq, gt, isNull } from 'drizzle-orm';

import type { Db } from '../connection';
import { clientApprovals } from '../schema';
import {
  parseStored,
  storedAnnotations,
  storedApprovalWarnings,
  storedDecision,
  type StoredAnnotations,
  type StoredDecision,
} from '../stored-json';
import type { ClientApprovalStatus, ClientDecisionChannel, Trust } from '../vocabulary';

type RawApproval = typeof clientApprovals.$inferSelect;
/** A client's call waiting for (or past) the person's decision, its JSON columns parsed. */
export type ClientApprovalRow = Omit<RawApproval, 'annotations' | 'warnings' | 'decision'> & {
  annotations: StoredAnnotations;
  warnings: string[];
  decision: StoredDecision | null;
};

function parse(row: RawApproval): ClientApprovalRow {
  const at = (column: string) => [`client_approvals.${column}`, row.id] as const;
  return {
    ...row,
    annotations: parseStored(storedAnnotations, row.annotations, ...at('annotations')) ?? {},
    warnings: parseStored(storedApprovalWarnings, row.warnings, ...at('warnings')) ?? [],
    decision: parseStored(storedDecision, row.decision, ...at('decision')),
  };
}

export interface NewClientApproval {
  userId: string;
  client: { kind: string; id: string; name: string };
  name: string;
  serverId: string;
  serverName: string;
  tool: string;
  trust: Trust;
  annotations: StoredAnnotations;
  input: unknown;
  argsHash: string;
  reason: string;
  warnings: string[];
  expiresAt: Date;
}

export async function insertClientApproval(db: Db, a: NewClientApproval): Promise<ClientApprovalRow> {
  const { client, ...rest } = a;
  const [row] = await db
    .insert(clientApprovals)
    .values({ ...rest, clientKind: client.kind, clientId: client.id, clientName: client.name })
    .returning();
  return parse(row!);
}

export async function getClientApproval(db: Db, userId: string, id: string): Promise<ClientApprovalRow | null> {
  const [row] = await db
    .select()
    .from(clientApprovals)
    .where(and(eq(clientApprovals.id, id), eq(clientApprovals.userId, userId)));
  return row ? parse(row) : null;
}

/** The person's calls still waiting at `now`, oldest first (the inbox). */
export async function listPendingClientApprovals(db: Db, userId: string, now: Date): Promise<ClientApprovalRow[]> {
  const rows = await db
    .select()
    .from(clientApprovals)
    .where(and(eq(clientApprovals.userId, userId), eq(clientApprovals.status, 'pending_approval'), gt(clientApprovals.expiresAt, now)))
    .orderBy(asc(clientApprovals.createdAt));
  return rows.map(parse);
}

/**
 * Ends the wait of a call still pending: the person's decision (with its channel), or the wait's
 * own end (`timed_out`, `cancelled`, with no decision). Only one of them wins, whichever instance
 * runs it first; the others get null and read the row to learn what did. A decision is bound to the
 * arguments shown (`argsHash`) and is too late once `expiresAt` has passed.
 */
export async function settleClientApproval(
  db: Db,
  userId: string,
  id: string,
  end:
    | { status: 'approved' | 'denied'; decision: StoredDecision; via: ClientDecisionChannel; argsHash: string; now: Date }
    | { status: Extract<ClientApprovalStatus, 'timed_out' | 'cancelled'>; now: Date },
): Promise<ClientApprovalRow | null> {
  const conditions = [eq(clientApprovals.id, id), eq(clientApprovals.userId, userId), eq(clientApprovals.status, 'pending_approval')];
  if ('decision' in end) conditions.push(eq(clientApprovals.argsHash, end.argsHash), gt(clientApprovals.expiresAt, end.now));
  const [row] = await db
    .update(clientApprovals)
    .set({
      status: end.status,
      decidedAt: end.now,
      ...('decision' in end && { decision: end.decision, decidedVia: end.via }),
    })
    .where(and(...conditions))
    .returning();
  return row ? parse(row) : null;
}

/** Claims the run of an allowed call: true for the one request that may run it, false for every other. */
export async function claimClientApprovalRun(db: Db, userId: string, id: string, now: Date): Promise<boolean> {
  const rows = await db
    .update(clientApprovals)
    .set({ ranAt: now })
    .where(
      and(
        eq(clientApprovals.id, id),
        eq(clientApprovals.userId, userId),
        eq(clientApprovals.status, 'approved'),
        isNull(clientApprovals.ranAt),
      ),
    )
    .returning({ id: clientApprovals.id });
  return rows.length === 1;
}
