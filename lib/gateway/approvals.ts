import type { Db } from '@/db/connection';
import {
  getClientApproval,
  insertClientApproval,
  listPendingClientApprovals,
  settleClientApproval,
  type ClientApprovalRow,
  type NewClientApproval,
} from '@/db/queries/client-approvals';
import type { ClientDecisionChannel, ClientDecisionKind } from '@/db/vocabulary';
import type { EventBus } from '@/lib/agent/bus';
import { AppError } from '@/lib/http/errors';
import { errorSummary } from '@/lib/log-safe';

import { INBOX_CHANGED } from './inbox-events';

/**
 * The durable wait of a client's call that needs the person's approval (issue 25). The call is a
 * row in `client_approvals`; the client's HTTP request waits on it, the person decides it in the
 * "Other clients" inbox of any tab, on any instance. Nothing lives only in the memory of the process
 * that holds the request:
 *
 * - A decision (or the wait's own end: its deadline, the client closing its request) is one
 *   conditional update out of `pending_approval`: the first wins wherever it runs, the others see
 *   the row settled.
 * - Every change is announced on the event bus under the person's inbox topic (`inboxTopic`), to
 *   every instance: open inboxes reload, and the waiting request reads its row again.
 * - The bus delivers at most once, so the waiting request also reads its row every
 *   `APPROVAL_RECHECK_MS` and whenever the bus says it may have missed something.
 */

/** The bus topic of one person's inbox of other clients' calls (a conversation id is a UUID: no clash). */
export const inboxTopic = (userId: string) => `client-approvals:${userId}`;

/** How often a waiting request reads its row even when the bus said nothing. */
export const APPROVAL_RECHECK_MS = 5_000;

export interface ApprovalDeps {
  db: Db;
  bus: EventBus;
}

function announce(deps: ApprovalDeps, row: Pick<ClientApprovalRow, 'id' | 'userId' | 'status'>) {
  deps.bus.announce(inboxTopic(row.userId), INBOX_CHANGED, { id: row.id, status: row.status });
}

/** Stores the call as waiting and tells the person's open tabs. */
export async function requestApproval(deps: ApprovalDeps, call: NewClientApproval): Promise<ClientApprovalRow> {
  const row = await insertClientApproval(deps.db, call);
  announce(deps, row);
  return row;
}

/**
 * Waits until the call is settled — decided by the person, past its deadline, or given up by the
 * client (`signal`) — and returns the settled row. Never throws for the wait itself.
 */
export async function awaitApproval(
  deps: ApprovalDeps,
  pending: ClientApprovalRow,
  signal: AbortSignal,
  opts: { onWaiting?: (waitedMs: number) => void } = {},
): Promise<ClientApprovalRow> {
  const { db } = deps;
  let done = false;
  let finish!: (row: ClientApprovalRow) => void;
  const settled = new Promise<ClientApprovalRow>((resolve) => (finish = resolve));
  const end = (row: ClientApprovalRow) => {
    if (done) return;
    done = true;
    finish(row);
  };
  const check = async () => {
    if (done) return;
    try {
      const row = await getClientApproval(db, pending.userId, pending.id);
      if (row && row.status !== 'pending_approval') end(row);
    } catch (err) {
      console.error('[mcp] approval read failed:', errorSummary(err));
    }
  };
  /** Ends the wait from this side; when someone decided first, their decision stands. */
  const close = async (status: 'timed_out' | 'cancelled') => {
    if (done) return;
    try {
      const row = await settleClientApproval(db, pending.userId, pending.id, { status, now: new Date() });
      if (row) {
        announce(deps, row);
        return end(row);
      }
    } catch (err) {
      console.error('[mcp] approval close failed:', errorSummary(err));
    }
    await check();
  };

  const unsubscribe = await deps.bus.subscribe(
    inboxTopic(pending.userId),
    (event) => {
      if (event.data.id === pending.id) void check();
    },
    () => void check(),
  );
  const deadline = setTimeout(() => void close('timed_out'), Math.max(0, pending.expiresAt.getTime() - Date.now()));
  const recheck = setInterval(() => {
    opts.onWaiting?.(Date.now() - pending.createdAt.getTime());
    // Past the deadline still waiting (closing it failed, e.g. the database was away): try again.
    if (Date.now() >= pending.expiresAt.getTime()) void close('timed_out');
    else void check();
  }, APPROVAL_RECHECK_MS);
  const onAbort = () => void close('cancelled');
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  // Decided between the insert and the subscription: the notice went by unheard.
  void check();
  try {
    return await settled;
  } finally {
    clearTimeout(deadline);
    clearInterval(recheck);
    signal.removeEventListener('abort', onAbort);
    unsubscribe();
  }
}

/**
 * The person's decision on one waiting call (the inbox's buttons, a client's elicitation answer),
 * bound to the arguments they were shown. 404 when it is not theirs; 409, saying what happened,
 * when it is no longer waiting.
 */
export async function decideClientCall(
  deps: ApprovalDeps,
  userId: string,
  id: string,
  choice: { decision: ClientDecisionKind; argsHash: string; via: ClientDecisionChannel },
): Promise<ClientApprovalRow> {
  const now = new Date();
  const row = await settleClientApproval(deps.db, userId, id, {
    status: choice.decision === 'deny' ? 'denied' : 'approved',
    decision: { v: 1, kind: choice.decision, by: userId, at: now.toISOString() },
    via: choice.via,
    argsHash: choice.argsHash,
    now,
  });
  if (row) {
    announce(deps, row);
    return row;
  }
  const current = await getClientApproval(deps.db, userId, id);
  if (!current) throw new AppError('not_found', 'client_call', 'No such call of another client waits for you.');
  if (current.status === 'pending_approval' && current.argsHash !== choice.argsHash) {
    throw new AppError('bad_request', 'body', 'argsHash: does not match the arguments of this call; reload the inbox.', 'argsHash');
  }
  const what: Record<ClientApprovalRow['status'], string> = {
    pending_approval: 'Its wait has just ended: the client was told nobody decided.',
    approved: 'It was already allowed.',
    denied: 'It was already denied.',
    timed_out: 'It waited too long: the client was told nobody decided.',
    cancelled: 'The client stopped waiting for it.',
  };
  throw new AppError('conflict', 'client_call', `This call no longer waits for a decision. ${what[current.status]}`);
}

/**
 * The client's answer to the elicitation of a waiting call: settles it when nobody decided yet
 * (by the person in Switchboard, or the deadline); returns the row as it stands either way.
 */
export async function answerByElicitation(
  deps: ApprovalDeps,
  pending: ClientApprovalRow,
  decision: ClientDecisionKind,
): Promise<ClientApprovalRow> {
  const now = new Date();
  const row = await settleClientApproval(deps.db, pending.userId, pending.id, {
    status: decision === 'deny' ? 'denied' : 'approved',
    decision: { v: 1, kind: decision, by: pending.userId, at: now.toISOString() },
    via: 'elicitation',
    argsHash: pending.argsHash,
    now,
  });
  if (row) {
    announce(deps, row);
    return row;
  }
  return (await getClientApproval(deps.db, pending.userId, pending.id)) ?? pending;
}

/** What the inbox shows of one waiting call: the client, the server, the tool, the exact arguments. */
export interface ClientApprovalView {
  id: string;
  client: { kind: string; id: string; name: string };
  name: string;
  server: { id: string; name: string };
  tool: string;
  trust: ClientApprovalRow['trust'];
  destructive: boolean;
  input: unknown;
  argsHash: string;
  reason: string;
  warnings: string[];
  createdAt: string;
  expiresAt: string;
}

export function approvalView(row: ClientApprovalRow): ClientApprovalView {
  return {
    id: row.id,
    client: { kind: row.clientKind, id: row.clientId, name: row.clientName },
    name: row.name,
    server: { id: row.serverId, name: row.serverName },
    tool: row.tool,
    trust: row.trust,
    // An untrusted server's hints are not believed: its tools are shown as the cautious default.
    destructive: !(row.trust === 'trusted' && (row.annotations.readOnlyHint === true || row.annotations.destructiveHint === false)),
    input: row.input,
    argsHash: row.argsHash,
    reason: row.reason,
    warnings: row.warnings,
    createdAt: row.createdAt.toISOString(),
    expiresAt: row.expiresAt.toISOString(),
  };
}

export async function pendingClientCalls(db: Db, userId: string): Promise<ClientApprovalView[]> {
  return (await listPendingClientApprovals(db, userId, new Date())).map(approvalView);
}
