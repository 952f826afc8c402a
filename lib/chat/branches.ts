import { getConversation, lockConversation } from '@/db/queries/conversations';
import { getMessage, newestLeafBeneath, runWroteMessages, setActiveLeaf, type MessageRow } from '@/db/queries/messages';
import { getActiveRun, getRun, type RunRow } from '@/db/queries/runs';
import type { ActiveRunStatus } from '@/db/vocabulary';
import { RunConflict, startRun } from '@/lib/agent/engine';
import { AppError } from '@/lib/http/errors';

import { modelForTurn } from './model-choice';
import type { ChatRuntime } from './runtime';
import { toRunView, type RunView } from './views';

/**
 * Messages form a tree (`messages.parent_id`); the conversation keeps its active leaf, and the
 * branch on screen — and the history the model is sent — is the path from the root to it. An
 * edit is a new message after the edited one's parent (`sendMessage` with `parentId`), a
 * regenerated answer a new turn after the answer's parent, and switching moves the leaf.
 *
 * None of them while a turn is active in the conversation (running, or waiting for a decision,
 * an answer or a sign-in): the turn's messages follow the active leaf, so the leaf must stay on
 * its branch until it ends; a pending approval stays as it is, on its branch.
 */

/** Why the conversation cannot change branch now, in words (a 409). */
const BUSY: Record<ActiveRunStatus, string> = {
  running: 'a turn is running in this conversation; wait for it to finish or stop it',
  awaiting_approval: 'a turn in this conversation is waiting for you to approve or deny a tool call; decide it or stop the turn',
  awaiting_input: "a turn in this conversation is waiting for your answer to a server's question; answer it or stop the turn",
  awaiting_sign_in: 'a turn in this conversation is waiting for you to sign in to a server; sign in or stop the turn',
};

export type BranchAction = 'edit' | 'regenerate' | 'switch';

const ACTION_WORDS: Record<BranchAction, string> = {
  edit: 'A message cannot be edited now',
  regenerate: 'An answer cannot be regenerated now',
  switch: 'The branch cannot be switched now',
};

export function busyError(action: BranchAction, status: ActiveRunStatus): AppError {
  return new AppError('conflict', 'run', `${ACTION_WORDS[action]}: ${BUSY[status]}.`);
}

/** The 409 of a turn that lost the race for the conversation: says which turn holds it, if it can still be read. */
async function conflictOf(rt: ChatRuntime, conversationId: string, action: BranchAction): Promise<AppError> {
  const active = await getActiveRun(rt.handle.db, conversationId);
  return active ? busyError(action, active.status as ActiveRunStatus) : new AppError('conflict', 'run', new RunConflict().message);
}

async function owned(rt: ChatRuntime, userId: string, id: string) {
  const c = await getConversation(rt.handle.db, userId, id);
  if (!c) throw new AppError('not_found', 'conversation', `No conversation with id "${id}".`);
  return c;
}

/**
 * The message a new one may follow (`parentId` of POST …/messages): one of this conversation's
 * (else 404 — another conversation's or user's reads as not found), and not an answer that asked
 * for tools (its results must follow it, or the history would hold an unanswered tool_use).
 * Null: the new message starts the conversation again (an edit of its first message).
 *
 * A views' message (what interactive views told the model, put before the person's words by their
 * turn: lib/agent/view-context-turn.ts) is no place to branch: it and the person's message after it
 * open one turn, so an edit of that message follows the views' message's own parent, and the new
 * turn brings the views' latest context again (it is owed on the new path). The edit is then a
 * sibling of the views' message, whose branch the person's message shows (`toPathMessageViews`,
 * lib/chat/views.ts).
 */
export async function checkedParent(rt: ChatRuntime, conversationId: string, parentId: string | null): Promise<string | null> {
  if (parentId === null) return null;
  const parent = await getMessage(rt.handle.db, conversationId, parentId);
  if (!parent) throw new AppError('not_found', 'message', `parentId: no message with id "${parentId}" in this conversation.`, 'parentId');
  // Its own parent stands for it, checked as any parent is.
  if (parent.origin?.kind === 'view_context') return checkedParent(rt, conversationId, parent.parentId);
  if (parent.role === 'assistant' && parent.content.some((b) => b.type === 'tool_use')) {
    throw new AppError(
      'bad_request',
      'body',
      `parentId: message "${parentId}" asked for tools, so its tool results must follow it; ` +
        'give the id of the message after them, or of an answer without tool calls.',
      'parentId',
    );
  }
  return parentId;
}

/** Maps the engine's one-active-run conflict of an edit to the 409 that says what holds the conversation. */
export async function asBranchConflict(rt: ChatRuntime, conversationId: string, err: unknown, action: BranchAction): Promise<never> {
  if (err instanceof RunConflict) throw await conflictOf(rt, conversationId, action);
  throw err;
}

/**
 * A new answer in place of `messageId` (an assistant message of this conversation): a new turn
 * after that answer's parent, so the new answer is its sibling and becomes the active branch. The
 * turn is an ordinary one: its tool calls go through the grants and approvals like any other,
 * nothing of the old answer's calls is re-run or reused. Give a turn's first answer to redo the
 * whole turn, or a later step's to redo it from there (after the tool results before it).
 */
export async function regenerate(rt: ChatRuntime, session: { userId: string; sessionId: string }, id: string, messageId: string) {
  const conversation = await owned(rt, session.userId, id);
  const answer = await getMessage(rt.handle.db, id, messageId);
  if (!answer)
    throw new AppError('not_found', 'message', `messageId: no message with id "${messageId}" in this conversation.`, 'messageId');
  if (answer.role !== 'assistant') {
    throw new AppError(
      'bad_request',
      'body',
      `messageId: message "${messageId}" is one of yours; only an answer (an assistant message) can be regenerated — ` +
        'to change your message, edit it.',
      'messageId',
    );
  }
  try {
    const { run, afterSeq } = await startRun(rt.engine, {
      conversationId: id,
      userId: session.userId,
      sessionId: session.sessionId,
      text: '',
      thinking: conversation.thinking,
      model: await modelForTurn(rt, conversation.model),
      messages: [],
      parentId: answer.parentId,
    });
    return { runId: run.id, status: run.status, afterSeq, parentId: answer.parentId };
  } catch (err) {
    return asBranchConflict(rt, id, err, 'regenerate');
  }
}

/**
 * Makes the branch through `messageId` the one on screen: its newest leaf (the message itself
 * when nothing follows it) becomes the active leaf. Under the conversation's row lock, so no turn
 * can start between the check and the move; a 409 while one is active (a pending approval stays
 * pending, on its own branch). Returns the leaf chosen.
 */
export async function switchBranch(
  rt: ChatRuntime,
  userId: string,
  id: string,
  messageId: string,
): Promise<{ leafId: string; resolvedFrom: string | null }> {
  await owned(rt, userId, id);
  return rt.handle.db.transaction(async (tx) => {
    await lockConversation(tx, id);
    const active = await getActiveRun(tx, id);
    if (active) throw busyError('switch', active.status as ActiveRunStatus);
    const leafId = await newestLeafBeneath(tx, id, messageId);
    if (!leafId) throw new AppError('not_found', 'message', `leafId: no message with id "${messageId}" in this conversation.`, 'leafId');
    await setActiveLeaf(tx, id, leafId);
    return { leafId, resolvedFrom: leafId === messageId ? null : messageId };
  });
}

/**
 * The last turn of the branch on screen (the page says when it failed or hit its step limit): the
 * conversation's latest run when it wrote on this path — or wrote nothing at all (a regenerated
 * turn that failed before its first word; it shows until the next turn) — else the run of the
 * path's last message that has one.
 */
export async function lastRunOnPath(rt: ChatRuntime, path: readonly MessageRow[], latest: RunRow | null): Promise<RunView | null> {
  if (!latest) return null;
  if (path.some((m) => m.runId === latest.id)) return toRunView(latest);
  if (!(await runWroteMessages(rt.handle.db, latest.conversationId, latest.id))) return toRunView(latest);
  const last = path.findLast((m) => m.runId)?.runId;
  const run = last ? await getRun(rt.handle.db, last) : null;
  return run ? toRunView(run) : null;
}
