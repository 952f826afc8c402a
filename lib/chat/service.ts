import { fileRefIds } from '@/db/file-refs';
import {
  createConversation,
  deleteConversation,
  getConversation,
  listConversations,
  renameConversation,
  setConversationInstructions,
  setConversationModel,
  setConversationThinking,
} from '@/db/queries/conversations';
import { listFilesByIds } from '@/db/queries/files';
import { listHistorySummaries } from '@/db/queries/history-summaries';
import { countChildren, listPath } from '@/db/queries/messages';
import { getLatestRun, listEndedRunUsage, type RunRow } from '@/db/queries/runs';
import { serversWithViewsOff } from '@/db/queries/servers';
import { listToolCallsAskedOn, type ToolCallRow } from '@/db/queries/tool-calls';
import type { StoredMessageContent } from '@/db/stored-json';
import { DEFAULT_THINKING_EFFORT, type ThinkingEffort } from '@/db/vocabulary';
import { activeRunOf, cancelRun, RunConflict, startRun } from '@/lib/agent/engine';
import { THINKING_BUDGET, thinkingBudgetProblem } from '@/lib/agent/thinking';
import { toToolCallView, type ToolCallView } from '@/lib/agent/tool-call-view';
import { deleteConversationFiles, fileDeps, filesOfConversation } from '@/lib/files/service';
import { toFileView, type FileView } from '@/lib/files/view';
import { AppError } from '@/lib/http/errors';
import { checkedInstructions } from '@/lib/instructions';

import { asBranchConflict, checkedParent, lastRunOnPath, switchBranch } from './branches';
import {
  composeAttachments,
  composePrompt,
  type AttachmentRef,
  type Composed,
  type ComposeDeps,
  type PromptRef,
  type ResourceRef,
} from './compose';
import { composeFileBlocks, fileRefsOf } from './compose-files';
import { checkedModel, modelForTurn } from './model-choice';
import { FIRST_PAGE_MESSAGES, pageStart } from './path-page';
import type { ChatRuntime } from './runtime';
import {
  toMessageView,
  toPathMessageViews,
  toRunView,
  toSettingsView,
  toSummary,
  withTurnMarks,
  type ConversationSettingsView,
  type ConversationSummary,
  type ConversationView,
  type EarlierMessagesView,
} from './views';

export const MAX_MESSAGE_CHARS = 32_000;

export async function listForUser(rt: ChatRuntime, userId: string): Promise<ConversationSummary[]> {
  return (await listConversations(rt.handle.db, userId)).map(toSummary);
}

/** A new conversation, with any model the listing offers (the configured one by default). */
export async function create(rt: ChatRuntime, userId: string, input: { title?: string; model?: string }) {
  const model = input.model ? await checkedModel(rt, input.model) : rt.modelConfig.model;
  return toSummary(await createConversation(rt.handle.db, { userId, model, title: input.title }));
}

async function owned(rt: ChatRuntime, userId: string, id: string) {
  const c = await getConversation(rt.handle.db, userId, id);
  if (!c) throw new AppError('not_found', 'conversation', `No conversation with id "${id}".`);
  return c;
}

/**
 * The conversation with the end of the path on screen (`earlier` messages before it are read with
 * `earlierMessages`); reading it also takes over a run whose instance died (see activeRunOf).
 */
export async function view(rt: ChatRuntime, userId: string, id: string): Promise<ConversationView> {
  const c = await owned(rt, userId, id);
  const active = await activeRunOf(rt.engine, id);
  const [messages, latest, summaries, runUsage, viewsOff] = await Promise.all([
    listPath(rt.handle.db, id),
    getLatestRun(rt.handle.db, id),
    listHistorySummaries(rt.handle.db, id),
    listEndedRunUsage(rt.handle.db, id),
    serversWithViewsOff(rt.handle.db, userId),
  ]);
  // The end of the path only; the page asks for the rest as the person scrolls back (./path-page.ts).
  const start = pageStart(messages, FIRST_PAGE_MESSAGES);
  const page = messages.slice(start);
  const [files, answersElsewhere, calls] = await Promise.all([
    filesOf(rt, userId, page),
    unansweredLeafAnswers(rt, id, messages, active),
    listToolCallsAskedOn(rt.handle.db, id, page),
  ]);
  // A page starts a turn, so the turns' marks read from it alone are those of the whole path.
  const marked = withTurnMarks(toPathMessageViews(messages, files).slice(start), summaries, runUsage);
  if (answersElsewhere) marked[marked.length - 1] = { ...marked.at(-1)!, answersElsewhere };
  return {
    ...toSettingsView(c),
    forkedFrom: c.forkedFrom && {
      title: c.forkedFrom.title,
      snapshotAt: c.forkedFrom.snapshotAt,
      toolDetailsHidden: c.forkedFrom.toolDetailsHidden,
    },
    messages: marked,
    earlier: start,
    toolCalls: toolCardsOf(calls, viewsOff),
    activeLeafId: c.activeLeafId,
    activeRun: active ? toRunView(active) : null,
    lastRun: (await lastRunOnPath(rt, messages, latest)) ?? null,
    lastSeq: c.eventSeq,
  };
}

/**
 * The messages before `beforeId` on its path — the page before one the person has — with their
 * tool calls, and how many come before them. `beforeId` need not be on the branch on screen now:
 * a message's path to the first one never changes.
 */
export async function earlierMessages(
  rt: ChatRuntime,
  userId: string,
  id: string,
  beforeId: string,
  limit: number,
): Promise<EarlierMessagesView> {
  await owned(rt, userId, id);
  const [path, summaries, runUsage, viewsOff] = await Promise.all([
    listPath(rt.handle.db, id, beforeId),
    listHistorySummaries(rt.handle.db, id),
    listEndedRunUsage(rt.handle.db, id),
    serversWithViewsOff(rt.handle.db, userId),
  ]);
  if (path.length === 0) throw new AppError('not_found', 'message', `No message with id "${beforeId}" in this conversation.`);
  const before = path.slice(0, -1);
  const start = pageStart(before, limit);
  // Marked with the message after the page, so a turn answered again from there shows no tokens (withTurnMarks).
  const page = path.slice(start);
  const [files, calls] = await Promise.all([filesOf(rt, userId, page), listToolCallsAskedOn(rt.handle.db, id, page.slice(0, -1))]);
  const marked = withTurnMarks(toPathMessageViews(path, files).slice(start), summaries, runUsage).slice(0, -1);
  return { messages: marked, earlier: start, toolCalls: toolCardsOf(calls, viewsOff) };
}

/** The cards of these calls: a call of a server whose interactive views the person switched off shows none. */
function toolCardsOf(calls: ToolCallRow[], viewsOff: ReadonlySet<string>): ToolCallView[] {
  return calls.map((call) => ({ ...toToolCallView(call), viewsOff: viewsOff.has(call.serverId ?? '') }));
}

/**
 * When the branch on screen ends at the person's message with no turn running (another answer to
 * it failed before its first word), how many answers it has elsewhere: the page offers to show
 * them. 0 otherwise, without a statement.
 */
async function unansweredLeafAnswers(rt: ChatRuntime, id: string, path: readonly { id: string; role: string }[], active: RunRow | null) {
  const leaf = path.at(-1);
  if (!leaf || leaf.role !== 'user' || active) return 0;
  return countChildren(rt.handle.db, id, leaf.id);
}

/** The files the messages carry, by id (no statement when they carry none). */
async function filesOf(rt: ChatRuntime, userId: string, messages: { content: StoredMessageContent }[]): Promise<Map<string, FileView>> {
  const ids = [...new Set(messages.flatMap((m) => fileRefIds(m.content)))];
  return new Map((await listFilesByIds(rt.handle.db, userId, ids)).map((f) => [f.id, toFileView(f)]));
}

export async function rename(rt: ChatRuntime, userId: string, id: string, newTitle: string): Promise<ConversationSettingsView> {
  const c = await renameConversation(rt.handle.db, userId, id, newTitle);
  if (!c) throw new AppError('not_found', 'conversation', `No conversation with id "${id}".`);
  return toSettingsView(c);
}

/**
 * The person's instructions for this conversation (empty text clears them): system text of its
 * model steps from the next one, after their own instructions; never in a share or a fork.
 */
export async function setInstructions(rt: ChatRuntime, userId: string, id: string, text: string): Promise<ConversationSettingsView> {
  const checked = checkedInstructions(text, 'conversation');
  if ('problem' in checked) throw new AppError('bad_request', 'body', `instructions: ${checked.problem}`, 'instructions');
  const c = await setConversationInstructions(rt.handle.db, userId, id, checked.text);
  if (!c) throw new AppError('not_found', 'conversation', `No conversation with id "${id}".`);
  return toSettingsView(c);
}

/**
 * Extended thinking on or off for the conversation's next turns (a turn in progress keeps its own):
 * the budget a model that takes one may think, and the effort of a model that only thinks
 * adaptively (lib/agent/thinking.ts). What is not sent keeps its value.
 */
export async function setThinking(
  rt: ChatRuntime,
  userId: string,
  id: string,
  thinking: { enabled: boolean; budgetTokens?: number; effort?: ThinkingEffort },
): Promise<ConversationSettingsView> {
  const current = (await owned(rt, userId, id)).thinking;
  const budgetTokens = thinking.budgetTokens ?? current?.budgetTokens ?? THINKING_BUDGET.default;
  const problem = thinkingBudgetProblem(budgetTokens);
  if (problem) throw new AppError('bad_request', 'body', `thinking.budgetTokens: ${problem}`, 'thinking.budgetTokens');
  const effort = thinking.effort ?? current?.effort ?? DEFAULT_THINKING_EFFORT;
  const c = await setConversationThinking(rt.handle.db, userId, id, { v: 2, enabled: thinking.enabled, budgetTokens, effort });
  if (!c) throw new AppError('not_found', 'conversation', `No conversation with id "${id}".`);
  return toSettingsView(c);
}

/** The conversation's model for its next turns, one the listing offers (a turn in progress keeps its own). */
export async function setModel(rt: ChatRuntime, userId: string, id: string, model: string): Promise<ConversationSettingsView> {
  await checkedModel(rt, model);
  const c = await setConversationModel(rt.handle.db, userId, id, model);
  if (!c) throw new AppError('not_found', 'conversation', `No conversation with id "${id}".`);
  return toSettingsView(c);
}

export async function remove(rt: ChatRuntime, userId: string, id: string) {
  const c = await owned(rt, userId, id);
  await cancelRun(rt.engine, c.id);
  // The servers are told its MCP sessions are over (the rows would go with the conversation anyway).
  await rt.tools.host.sessions?.endConversation(userId, id);
  // Its files go with it, but for those another of the person's messages still holds.
  const files = fileDeps(rt.handle.db);
  const fileIds = await filesOfConversation(files, id);
  await deleteConversation(rt.handle.db, userId, id);
  await deleteConversationFiles(files, userId, fileIds);
}

/**
 * Starts a turn with the person's text, or with a server's prompt (`prompt`, the text then added
 * after it), or with resources attached to the text (`attachments`): lib/chat/compose.ts.
 */
export async function sendMessage(
  rt: ChatRuntime,
  session: { userId: string; sessionId: string },
  id: string,
  text: string,
  extras: { prompt?: PromptRef; attachments?: AttachmentRef[]; parentId?: string | null } = {},
) {
  const conversation = await owned(rt, session.userId, id);
  // An edit: the message follows this one instead of the active leaf (lib/chat/branches.ts).
  const parentId = extras.parentId === undefined ? undefined : await checkedParent(rt, id, extras.parentId);
  const attachments = extras.attachments ?? [];
  if (extras.prompt && attachments.length) {
    throw new AppError(
      'bad_request',
      'body',
      'attachments: a prompt carries none; attach resources and files to a message of your own',
      'attachments',
    );
  }
  if (!text.trim() && !extras.prompt && !attachments.length) throw new AppError('bad_request', 'body', 'text: must not be empty', 'text');
  if (text.length > MAX_MESSAGE_CHARS) {
    throw new AppError(
      'payload_too_large',
      'message',
      `text: the message is ${text.length.toLocaleString('en')} characters; at most ${MAX_MESSAGE_CHARS.toLocaleString('en')} are allowed.`,
      'text',
    );
  }
  const caller = { userId: session.userId, conversationId: id };
  const fileRefs = fileRefsOf(attachments);
  const resourceRefs = attachments.filter((a): a is ResourceRef => !('fileId' in a));
  const withFiles = await composeFileBlocks(rt.handle.db, session.userId, fileRefs);
  const composed = extras.prompt
    ? await composePrompt(composeDeps(rt), caller, extras.prompt, text)
    : resourceRefs.length
      ? withFileBlocks(await composeAttachments(composeDeps(rt), caller, resourceRefs, text), withFiles.blocks)
      : withFiles.files.length
        ? filesOnly(withFiles.blocks, text, withFiles.files[0]!.name)
        : null;
  try {
    const { run, afterSeq, messages } = await startRun(rt.engine, {
      conversationId: id,
      userId: session.userId,
      sessionId: session.sessionId,
      text: composed?.titleText ?? text,
      thinking: conversation.thinking,
      model: await modelForTurn(rt, conversation.model),
      ...(composed && { messages: composed.messages, taint: composed.taint }),
      ...(parentId !== undefined && { parentId }),
      withViewContext: true,
    });
    // What the turn put in the conversation, as stored (ids, parent, a prompt's or resources' origin,
    // files): the page shows them at once, and can edit a message sent a moment ago by its real id.
    const files = new Map(withFiles.files.map((f) => [f.id, toFileView(f)]));
    return { runId: run.id, status: run.status, afterSeq, messages: messages.map((m) => toMessageView(m, files)) };
  } catch (err) {
    if (parentId !== undefined) return asBranchConflict(rt, id, err, 'edit');
    if (err instanceof RunConflict) throw new AppError('conflict', 'run', err.message);
    throw err;
  }
}

/** Resources composed into a message, with the person's files first in it. */
function withFileBlocks(composed: Composed, blocks: StoredMessageContent): Composed {
  if (!blocks.length) return composed;
  const [first, ...rest] = composed.messages;
  return { ...composed, messages: [{ ...first!, content: [...blocks, ...first!.content] }, ...rest] };
}

/** A message of the person's words and files; a message of files alone is named after the first. */
function filesOnly(blocks: StoredMessageContent, text: string, firstName: string): Composed {
  const content: StoredMessageContent = [...blocks, ...(text.trim() ? [{ type: 'text' as const, text }] : [])];
  return { messages: [{ role: 'user', content, origin: null }], taint: null, titleText: text.trim() || `About ${firstName}` };
}

export async function stop(rt: ChatRuntime, userId: string, id: string) {
  await owned(rt, userId, id);
  const run = await cancelRun(rt.engine, id);
  if (!run) throw new AppError('conflict', 'run', 'Nothing to stop: no turn is in progress.');
  return { runId: run.id, status: run.status };
}

export function composeDeps(rt: ChatRuntime): ComposeDeps {
  return { db: rt.handle.db, connectDeps: rt.tools.connectDeps, serversFor: (userId) => rt.tools.host.serversFor(userId) };
}

export async function assertOwned(rt: ChatRuntime, userId: string, id: string) {
  await owned(rt, userId, id);
}

/**
 * `PUT …/active`: shows the branch through `messageId` (lib/chat/branches.ts) and answers the
 * conversation's view of it, so one click of `‹ ›` is one request.
 */
export async function showBranch(rt: ChatRuntime, userId: string, id: string, messageId: string) {
  const { leafId, resolvedFrom } = await switchBranch(rt, userId, id, messageId);
  return { leafId, resolvedFrom, conversation: await view(rt, userId, id) };
}
