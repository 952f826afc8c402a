import { getRun, lockRun, updateRunIfVersion } from '@/db/queries/runs';
import {
  countStepCallsWithStatus,
  getToolCall,
  getToolCallForUser,
  updateToolCallIfVersion,
  type ToolCallRow,
} from '@/db/queries/tool-calls';
import { isOneOf, PAUSED_RUN_STATUSES, type DecisionKind, type ToolCallStatus } from '@/db/vocabulary';
import { constraintUnmetBy } from '@/lib/consent/constraint-check';
import { prepareSessionGrant, SessionGrantRefused } from '@/lib/consent/session-grant';
import { withInputDefaults } from '@/lib/mcp/schema-guard';
import { errorToolResult } from '@/lib/mcp/to-tool-result';

import { argsHash } from './args-hash';
import { auditEndedCalls } from './audit-calls';
import { leaseUntil, type EngineDeps } from './deps';
import { driveRun } from './drive-run';
import { finish } from './finish';
import { checkTransition } from './run-state';
import { toToolCallView } from './tool-call-view';
import { WAITING } from './tool-phase';
import { announce, failViewCall, runViewCall } from './view-calls';

export class DecisionError extends Error {
  constructor(
    readonly kind: 'not_found' | 'conflict' | 'invalid',
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

export interface DecisionInput {
  userId: string;
  toolCallId: string;
  decision: DecisionKind;
  argsHash: string;
  reason?: string;
  /** Edit-then-approve: the edited input, validated again. */
  input?: Record<string, unknown>;
  /** With `allow_session`: a JSON Schema fragment later calls' arguments must also meet. */
  constraint?: Record<string, unknown>;
  /** The signed-in session deciding: a view's call (./view-calls.ts) is checked against its grants before it runs. */
  sessionId?: string | null;
}

/**
 * Records a person's decision on one pending call, bound to the hash of the arguments they saw.
 * Repeating the same decision is harmless; a different decision or input for a decided call is a
 * conflict. When the last pending call of the step is decided, the run resumes here — on
 * whichever instance took the request — and exactly one decider wins the right to drive it.
 */
export async function decideCall(deps: EngineDeps, given: DecisionInput): Promise<{ toolCall: ToolCallRow; resumed: boolean }> {
  let call = await getToolCallForUser(deps.db, given.userId, given.toolCallId);
  if (!call) throw new DecisionError('not_found', `No tool call with id "${given.toolCallId}".`);
  const originalHash = call.decision?.editedFrom ?? call.argsHash;
  if (given.argsHash !== originalHash && given.argsHash !== call.argsHash) {
    throw new DecisionError('conflict', 'The arguments you decided on are not the ones of this call. Reload and decide again.', 'argsHash');
  }
  // An edited input gets the schema's defaults as the model's did (lib/agent/propose-calls.ts):
  // from here on it is the input that is compared, checked, stored and sent.
  const filled = given.input === undefined ? undefined : withInputDefaults(call.inputSchema, given.input);
  const d: DecisionInput = { ...given, ...(filled && { input: filled.input }) };
  const edited = d.input !== undefined && argsHash(d.input) !== call.argsHash;
  if (edited && d.decision === 'deny') throw new DecisionError('invalid', 'input: only an approval can carry edited arguments.', 'input');
  if (edited) {
    if (filled?.problem) throw new DecisionError('invalid', `input: ${filled.problem}`, 'input');
    const outside = constraintUnmetBy(call.verdict?.constraint, d.input);
    if (outside) {
      throw new DecisionError(
        'invalid',
        `input: the edited arguments are outside what your grant allows for this tool: ${outside}`,
        'input',
      );
    }
  }

  if (d.constraint && d.decision !== 'allow_session') {
    throw new DecisionError('invalid', 'constraint: only "allow_session" takes a constraint.', 'constraint');
  }
  // "Allow for this session" is checked before anything is decided: refused, nothing changes.
  const grantForSession = call.status === 'pending_approval' && d.decision === 'allow_session' ? await sessionGrant(deps, call, d) : null;

  for (let attempt = 0; attempt < 3; attempt++) {
    if (call.status !== 'pending_approval') return { toolCall: repeatOrConflict(call, d), resumed: false };
    const approve = d.decision !== 'deny';
    const current = call;
    // A deny ends the call: its audit entry commits with it.
    const decided = await deps.db.transaction(async (tx) => {
      const row = await updateToolCallIfVersion(tx, current.id, current.version, {
        status: approve ? 'approved' : 'denied',
        ...(edited ? { input: d.input, argsHash: argsHash(d.input) } : {}),
        decision: {
          v: 1,
          kind: d.decision,
          by: d.userId,
          at: new Date().toISOString(),
          ...(d.reason ? { reason: d.reason } : {}),
          ...(edited ? { editedFrom: current.argsHash } : {}),
        },
        ...(approve
          ? {}
          : {
              result: errorToolResult(
                current.toolUseId,
                `The person denied this call${d.reason ? `: "${d.reason}"` : '.'} Do not retry it unless they ask.`,
              ),
              isError: true,
              endedAt: new Date(),
            }),
      });
      if (row) await auditEndedCalls(tx, deps, [row]);
      // A view's call is told in the same transaction (the model's, below, once the grant is written).
      if (row?.askedByCallId) await announce(deps, tx, row, 'tool_call.decided');
      return row;
    });
    if (!decided) {
      call = (await getToolCall(deps.db, call.id))!; // another tab decided first: look again
      continue;
    }
    // A view's call belongs to no step of the run: allowed, it runs now, once, and its result
    // goes back to the view (in this answer), not to the model; nothing of the run resumes.
    if (decided.askedByCallId) return { toolCall: await settleViewCall(deps, decided, approve, grantForSession, d), resumed: false };
    // The grant before the run resumes: the step's next calls to this tool already see it.
    if (grantForSession) await grantForSession();
    await deps.events.persist(decided.conversationId, decided.runId, 'tool_call.decided', { toolCall: toToolCallView(decided) });
    return { toolCall: decided, resumed: await resumeIfSettled(deps, decided) };
  }
  throw new DecisionError('conflict', 'This call is being decided elsewhere. Reload and try again.');
}

/**
 * A view's call once decided: denied, it has ended; allowed, its session grant is written and it
 * runs. Whatever throws on the way ends it `errored` (`failViewCall`): approved, nothing else
 * would ever run or end it.
 */
async function settleViewCall(
  deps: EngineDeps,
  decided: ToolCallRow,
  approve: boolean,
  grantForSession: (() => Promise<unknown>) | null,
  d: DecisionInput,
): Promise<ToolCallRow> {
  if (!approve) return decided;
  try {
    if (grantForSession) await grantForSession();
  } catch (err) {
    return failViewCall(deps, decided, err);
  }
  return runViewCall(deps, decided, d.sessionId ?? null);
}

/** The grant "Allow for this session" will write, or a refusal naming the field (lib/consent/session-grant.ts). */
async function sessionGrant(deps: EngineDeps, call: ToolCallRow, d: DecisionInput) {
  const run = await getRun(deps.db, call.runId);
  if (!run) throw new DecisionError('not_found', `No tool call with id "${d.toolCallId}".`);
  // A view's call is judged and run in the session of whoever decides it (runViewCall), not the one
  // that started the turn its card is in: "for this session" means the deciding one.
  const forSession = call.askedByCallId ? { ...run, sessionId: d.sessionId ?? null } : run;
  try {
    return await prepareSessionGrant(deps, call, forSession, {
      input: d.input ?? (call.input as Record<string, unknown>),
      constraint: d.constraint,
    });
  } catch (err) {
    if (err instanceof SessionGrantRefused) throw new DecisionError('invalid', err.message, err.field);
    throw err;
  }
}

function repeatOrConflict(call: ToolCallRow, d: DecisionInput): ToolCallRow {
  const previous = call.decision?.kind;
  const sameSide = previous !== undefined && (previous === 'deny') === (d.decision === 'deny');
  const sameInput = d.input === undefined || argsHash(d.input) === call.argsHash;
  if (sameSide && sameInput) return call;
  throw new DecisionError('conflict', `This call was already decided (${call.status}).`);
}

/**
 * The last decision, answer or sign-in a step waited for moves the run from its paused status back
 * to running, once: of several instances acting at the same moment, one wins the compare-and-swap.
 * A step may wait for several things (input from one server, a sign-in to another): the run goes
 * on only when none of its calls waits any more.
 */
export async function resumeIfSettled(
  deps: EngineDeps,
  call: Pick<ToolCallRow, 'runId' | 'step'>,
  /** What still holds the run; a sign-in lets it go on to ask for approvals itself. */
  blocking: readonly ToolCallStatus[] = WAITING,
): Promise<boolean> {
  // The run row is locked: a driver that is pausing right now finishes first, and then either
  // sees this decision (and carries on) or has paused (and this resumes it).
  const outcome = await deps.db.transaction(async (tx) => {
    const run = await lockRun(tx, call.runId);
    if (!run || !isOneOf(PAUSED_RUN_STATUSES, run.status) || run.step !== call.step) return null;
    if ((await countStepCallsWithStatus(tx, run.id, run.step, blocking)) > 0) return null;
    if (run.cancelRequestedAt) return { kind: 'cancelled' as const, run };
    checkTransition(run, 'running');
    const resumed = await updateRunIfVersion(tx, run.id, run.version, {
      status: 'running',
      leaseOwner: deps.instanceId,
      leaseExpiresAt: leaseUntil(deps),
    });
    return resumed ? { kind: 'resumed' as const, run: resumed } : null;
  });
  if (!outcome) return false;
  if (outcome.kind === 'cancelled') {
    // Stop was pressed while the person decided: nothing more runs.
    await finish(deps, outcome.run, 'cancelled').catch(() => {});
    return false;
  }
  const resumedId = outcome.run.id;
  deps.schedule(() => driveRun(deps, resumedId));
  return true;
}
