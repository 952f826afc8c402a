import { randomUUID } from 'node:crypto';

import { setDefaultTitle } from '@/db/queries/conversations';
import { appendMessage, getActiveLeaf, setActiveLeaf, type MessageRow } from '@/db/queries/messages';
import { claimLapsedRun, getActiveRun, getRun, insertRun, listLapsedRuns, requestRunCancel, type RunRow } from '@/db/queries/runs';
import { markConversationTainted } from '@/db/queries/taint';
import type { StoredMessageContent, StoredMessageOrigin, StoredTaint, StoredThinking } from '@/db/stored-json';
import { isOneOf, PAUSED_RUN_STATUSES } from '@/db/vocabulary';

import { leaseUntil, type EngineDeps } from './deps';
import { abortLocalRun, driveRun } from './drive-run';
import { finish } from './finish';
import { observe } from './observe';
import { admitRun, lockRunAdmission } from './run-limits';
import { discardAbandonedText } from './take-over';
import { suggestTitle } from './title';
import { viewContextOpening } from './view-context-turn';

export class RunConflict extends Error {
  constructor() {
    super('This conversation already has a turn in progress. Wait for it to finish or stop it.');
  }
}

/**
 * Starts a turn: stores the user's message and a new run (one active run per conversation, and
 * within the user's quotas, else `LimitExceeded`), then drives it after the response. Returns
 * the run and the seq just before its first event, from which a client replays the turn.
 */
export async function startRun(
  deps: EngineDeps,
  input: {
    conversationId: string;
    userId: string;
    sessionId: string | null;
    /**
     * The MCP client (its access_tokens row) whose `switchboard_ask` starts the turn, when no
     * session does (lib/gateway/ask-tool.ts): its profile is the turn's grants.
     */
    clientId?: string | null;
    text: string;
    /** The conversation's extended-thinking setting: fixed for the whole turn. */
    thinking?: StoredThinking | null;
    /** The conversation's model (`runs.model`): every step of the turn asks it. The configured model when unset. */
    model?: string;
    /**
     * What to store as the turn's opening messages instead of `text` alone, each with its origin
     * (lib/chat/compose.ts: a server's rendered prompt, a message with attached resources); the
     * last is a user message. `text` still names the conversation.
     */
    messages?: OpeningMessage[];
    /** The mark those messages bring (an untrusted server's prompt or resource), written with them. */
    taint?: StoredTaint | null;
    /**
     * The message the turn follows, when not the active leaf (an edit or a regenerated answer
     * starts a branch there; null: a new first message). Moved only once the run is admitted.
     */
    parentId?: string | null;
    /**
     * A message of the person's own: what interactive views told the model since its last turn goes
     * before it, as a message of its own (./view-context-turn.ts). Not for a regenerated or
     * continued answer, which the model takes up where it was.
     */
    withViewContext?: boolean;
  },
): Promise<{ run: RunRow; afterSeq: number; messages: MessageRow[] }> {
  let firstMessage = false;
  let plan: string | null = null;
  const stored: MessageRow[] = [];
  // The path the views' context is read on is the one the turn follows: for a plain send the active
  // leaf, read once here and pinned as the turn's parent below, so a branch switched in between (another
  // tab) cannot put this path's views' message on another.
  const withViews = !!(input.withViewContext && deps.tools);
  const parentId =
    withViews && input.parentId === undefined ? ((await getActiveLeaf(deps.db, input.conversationId))?.id ?? null) : input.parentId;
  const views = withViews
    ? await viewContextOpening(deps.db, input.conversationId, parentId, () => deps.tools!.serversFor(input.userId))
    : null;
  const opening = [
    ...(views ? [views.message] : []),
    ...(input.messages ?? [{ role: 'user' as const, content: [{ type: 'text' as const, text: input.text }], origin: null }]),
  ];
  // Every mark the opening brings, in the order its messages enter (the views' first): none
  // replaces another, and the conversation keeps the first (db/queries/taint.ts).
  const taints = [views?.taint, input.taint].filter((t): t is StoredTaint => !!t);
  const run = await deps.db.transaction(async (tx) => {
    await lockRunAdmission(tx, input.userId);
    const inserted = await insertRun(tx, {
      conversationId: input.conversationId,
      userId: input.userId,
      sessionId: input.sessionId,
      clientId: input.clientId ?? null,
      model: input.model ?? deps.model.model,
      maxSteps: deps.maxSteps ?? 20,
      leaseOwner: deps.instanceId,
      leaseExpiresAt: leaseUntil(deps),
      thinking: input.thinking?.enabled ? input.thinking : null,
    });
    if (!inserted) throw new RunConflict();
    ({ plan } = await admitRun(tx, input.userId));
    if (parentId !== undefined) await setActiveLeaf(tx, input.conversationId, parentId);
    // Every opening message but the last on its own; the last goes with the run's opening event.
    const last = opening.at(-1);
    for (const m of opening.slice(0, -1)) {
      stored.push(
        await appendMessage(tx, {
          conversationId: input.conversationId,
          role: m.role,
          content: m.content,
          runId: inserted.id,
          origin: m.origin,
        }),
      );
    }
    for (const taint of taints) await markConversationTainted(tx, input.conversationId, taint);
    const opened = await deps.events.storeWith(
      tx,
      input.conversationId,
      inserted.id,
      [{ type: 'run.started', data: { model: inserted.model } }],
      {
        runStart: true,
        message: last && { id: randomUUID(), role: last.role, content: last.content, runId: inserted.id, origin: last.origin },
      },
    );
    if (opened?.message) stored.push(opened.message);
    // None when the turn continues a cut answer as it stands (lib/chat/continue.ts).
    firstMessage = stored[0]?.seq === 1;
    const row = opened?.events[0];
    return { ...inserted, startSeq: row!.seq! };
  });
  observe(deps, (o) => o.turnStarted());
  // A first message names the conversation at once (its first line); the model may then offer a better title.
  const provisional = titleFrom(input.text);
  if (firstMessage && (await setDefaultTitle(deps.db, input.conversationId, provisional)) && deps.titles) {
    deps.schedule(() => suggestTitle(deps, { conversationId: input.conversationId, userId: input.userId }, input.text, provisional));
  }
  // The run as just written and the plan it was admitted under: the drive need not read them again.
  deps.schedule(() => driveRun(deps, run.id, { run, plan }));
  return { run, afterSeq: run.startSeq! - 1, messages: stored };
}

/** A message a turn opens with (see `startRun`'s `messages`). */
export interface OpeningMessage {
  role: 'user' | 'assistant';
  content: StoredMessageContent;
  origin: StoredMessageOrigin | null;
}

export function titleFrom(text: string): string {
  const line = text.trim().split('\n')[0]!.replace(/\s+/g, ' ');
  return line.length > 60 ? `${line.slice(0, 57).trimEnd()}…` : line || 'New conversation';
}

/**
 * Stop. Recorded on the run so whichever instance drives it stops at its next check (at once
 * when that is this one). A run nobody is driving — paused for a person (a decision, an answer,
 * a sign-in), or whose instance
 * died — is ended here.
 */
export async function cancelRun(deps: EngineDeps, conversationId: string): Promise<RunRow | null> {
  const active = await getActiveRun(deps.db, conversationId);
  if (!active) return null;
  let marked = await requestRunCancel(deps.db, active.id);
  if (!marked) return null;
  if (abortLocalRun(active.id)) {
    // The driver here stops at its next check; but if it paused just before, nobody drives it.
    marked = (await getRun(deps.db, active.id)) ?? marked;
    if (marked.status === 'running') return marked;
  }
  const lapsed = !marked.leaseExpiresAt || marked.leaseExpiresAt.getTime() < Date.now();
  if (isOneOf(PAUSED_RUN_STATUSES, marked.status) || (marked.status === 'running' && lapsed)) {
    return finish(deps, marked, 'cancelled').catch(() => marked);
  }
  return marked;
}

/**
 * The conversation's active run, after taking it over if its lease lapsed (the instance that drove
 * it crashed or was stopped). Every read of a conversation goes through here — its page, its JSON,
 * its event stream when it opens and at each ping — so a run is continued by whoever looks next,
 * in this one place.
 *
 * A GET may do this write because it starts nothing and allows nothing: the run was started by
 * the person's message, every call in it was decided by them (or by the policy they set), and the
 * driver re-checks Stop and every decision as it goes. Taking over only continues that.
 */
export async function activeRunOf(deps: EngineDeps, conversationId: string): Promise<RunRow | null> {
  const active = await getActiveRun(deps.db, conversationId);
  if (!active || !leaseLapsed(active, new Date())) return active;
  return (await takeOver(deps, active)) ?? getActiveRun(deps.db, conversationId);
}

/**
 * Takes over running runs whose lease lapsed and continues them here: those of one conversation,
 * or every one for the sweep. Returns how many were taken over.
 */
export async function resumeLapsedRuns(deps: EngineDeps, conversationId?: string): Promise<number> {
  const now = new Date();
  const lapsed = conversationId
    ? [await getActiveRun(deps.db, conversationId)].filter((r): r is RunRow => !!r && leaseLapsed(r, now))
    : await listLapsedRuns(deps.db, now);
  let taken = 0;
  for (const run of lapsed) if (await takeOver(deps, run, now)) taken++;
  return taken;
}

function leaseLapsed(run: RunRow, now: Date): boolean {
  return run.status === 'running' && (!run.leaseExpiresAt || run.leaseExpiresAt < now);
}

/**
 * Claims the lease (only one instance wins) and drives the run after the response, once the text
 * the previous instance streamed for a step it never stored is discarded (./take-over.ts).
 */
async function takeOver(deps: EngineDeps, run: RunRow, now = new Date()): Promise<RunRow | null> {
  const claimed = await claimLapsedRun(deps.db, run.id, deps.instanceId, leaseUntil(deps), now);
  if (claimed) deps.schedule(() => discardAbandonedText(deps, claimed).then(() => driveRun(deps, claimed.id)));
  return claimed;
}
