import { fileRefIds } from '@/db/file-refs';
import type { ConversationRow } from '@/db/queries/conversations';
import type { MessageRow, PathMessageRow } from '@/db/queries/messages';
import type { RunRow } from '@/db/queries/runs';
import type { StoredMessageContent, StoredMessageOrigin, StoredRunError, StoredUsage } from '@/db/stored-json';
import { DEFAULT_THINKING_EFFORT, type RunStatus, type ThinkingEffort } from '@/db/vocabulary';
import { THINKING_BUDGET } from '@/lib/agent/thinking';
import type { ToolCallView } from '@/lib/agent/tool-call-view';
import type { FileView } from '@/lib/files/view';

export interface ConversationSummary {
  id: string;
  title: string;
  model: string;
  /**
   * Extended thinking for the next turns: off, or on with a budget of tokens (a model that takes
   * one) and an effort (a model that only thinks adaptively; GET /api/models says which is which).
   */
  thinking: { enabled: boolean; budgetTokens: number; effort: ThinkingEffort };
  /** The MCP client that started it through `switchboard_ask` (its name as it was then); null: the person did. */
  startedBy: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface RunView {
  id: string;
  status: RunStatus;
  stopReason: string | null;
  error: StoredRunError | null;
  /** Replay this conversation's events after this seq to follow the run from its start. */
  afterSeq: number;
}

export interface MessageView {
  id: string;
  seq: number;
  role: 'user' | 'assistant';
  content: StoredMessageContent;
  runId: string | null;
  stopReason: string | null;
  createdAt: string;
  /** What an MCP server put into it: a prompt the person ran, resources they attached (absent for their own words). */
  origin?: StoredMessageOrigin;
  /** On the last message of an ended turn: its tokens. */
  usage?: TurnUsageView;
  /** On the last message a summary covers: the messages up to here are sent to the model as this summary. */
  summary?: SummaryMarkView;
  /**
   * The files the person attached to this message, in the order the model got them (their
   * reference blocks are in `content`: `source.type === 'file'`).
   */
  files?: FileView[];
  /** The message this one follows (null: the conversation's first). Messages form a tree (lib/chat/branches.ts). */
  parentId?: string | null;
  /**
   * On a message of the conversation view that has siblings (an edit of it, another answer in its
   * place): where it stands among them, for `‹ index+1/count ›`. To show a sibling, send
   * `PUT …/active { leafId: siblingIds[i] }` (the newest leaf beneath it becomes the active one).
   * Absent when the message is the only one in its place.
   */
  branch?: BranchView;
  /**
   * On the path's last message when it is the person's and unanswered here (another answer to it
   * failed before its first word): how many answers it has on other branches. `PUT …/active
   * { leafId: <this id> }` shows the newest of them.
   */
  answersElsewhere?: number;
}

export interface BranchView {
  /** This message's place among its siblings, from 0, oldest first. */
  index: number;
  count: number;
  /** Every sibling's id (this one's too, at `index`), oldest first. */
  siblingIds: string[];
}

/** A turn's tokens, summed over its model calls: input (uncached), output, and the prompt cache's writes and reads. */
export interface TurnUsageView {
  inputTokens: number;
  outputTokens: number;
  cacheCreationInputTokens: number;
  cacheReadInputTokens: number;
}

export interface SummaryMarkView {
  text: string;
}

/** A conversation's own settings: what `PATCH /api/conversations/:id` answers, and part of its view. */
export interface ConversationSettingsView extends ConversationSummary {
  /** The person's instructions for this conversation ('' when none); only its owner ever sees them. */
  instructions: string;
}

/** Where a forked conversation came from (a share link, lib/share), shown as a note at its top. */
export interface ForkOrigin {
  title: string;
  snapshotAt: string;
  /** The owner had hidden tool arguments and results: the copied calls say so instead. */
  toolDetailsHidden: boolean;
}

export interface ConversationView extends ConversationSettingsView {
  /** Set when the conversation was continued from someone's share link (lib/share). */
  forkedFrom: ForkOrigin | null;
  toolCalls: ToolCallView[];
  /**
   * The end of the active branch: the path's last messages up to the active leaf, each with its
   * `branch`, starting at a turn's first message (lib/chat/path-page.ts).
   */
  messages: MessageView[];
  /** How many messages of the path come before `messages` (0: they start at the first): `GET …/messages?before=` reads them. */
  earlier: number;
  /** The last message of the branch on screen; the next message follows it (null: no message yet). */
  activeLeafId: string | null;
  activeRun: RunView | null;
  /** The last turn of the branch on screen. */
  lastRun: RunView | null;
  lastSeq: number;
}

/** A page of the path before a message the page has: `GET /api/conversations/:id/messages?before=`. */
export interface EarlierMessagesView {
  messages: MessageView[];
  /** How many messages of the path come before these. */
  earlier: number;
  toolCalls: ToolCallView[];
}

export function toSummary(c: ConversationRow): ConversationSummary {
  return {
    id: c.id,
    title: c.title,
    model: c.model,
    thinking: {
      enabled: c.thinking?.enabled === true,
      budgetTokens: c.thinking?.budgetTokens ?? THINKING_BUDGET.default,
      effort: c.thinking?.effort ?? DEFAULT_THINKING_EFFORT,
    },
    startedBy: c.startedBy?.name ?? null,
    createdAt: c.createdAt.toISOString(),
    updatedAt: c.updatedAt.toISOString(),
  };
}

export function toSettingsView(c: ConversationRow): ConversationSettingsView {
  return { ...toSummary(c), instructions: c.instructions ?? '' };
}

export function toRunView(r: RunRow): RunView {
  return { id: r.id, status: r.status, stopReason: r.stopReason, error: r.error ?? null, afterSeq: Math.max(0, (r.startSeq ?? 1) - 1) };
}

export function toMessageView(m: MessageRow, files: ReadonlyMap<string, FileView> = new Map()): MessageView {
  const attached = fileRefIds(m.content).flatMap((id) => files.get(id) ?? []);
  return {
    id: m.id,
    seq: m.seq,
    role: m.role,
    content: m.content,
    runId: m.runId,
    stopReason: m.stopReason,
    createdAt: m.createdAt.toISOString(),
    ...(m.origin && { origin: m.origin }),
    ...(attached.length && { files: attached }),
    parentId: m.parentId,
  };
}

/** A message of the active path, with its place among its siblings when it has some. */
export function toPathMessageView(
  m: PathMessageRow,
  files: ReadonlyMap<string, FileView> = new Map(),
  place: PathMessageRow = m,
): MessageView {
  const index = place.siblingIds?.indexOf(place.id) ?? -1;
  return {
    ...toMessageView(m, files),
    ...(place.siblingIds && index >= 0 && { branch: { index, count: place.siblingIds.length, siblingIds: place.siblingIds } }),
  };
}

/**
 * The path's messages as the page shows them, each with its place among its siblings. A turn whose
 * person's message brought views' context opens with a views' message (lib/agent/view-context-turn.ts),
 * shown as a folded note with no controls, and the person's message follows it: an edit of the
 * person's message is a sibling of that views' message (lib/chat/branches.ts `checkedParent`), so
 * the person's message shows the views' message's place — its `‹ 1/2 ›` — and the note none.
 * Mapped over the whole path before a page is cut from it: the note may fall on the page before.
 */
export function toPathMessageViews(path: readonly PathMessageRow[], files: ReadonlyMap<string, FileView> = new Map()): MessageView[] {
  const opens = (views: PathMessageRow | undefined, m: PathMessageRow | undefined) =>
    views?.origin?.kind === 'view_context' && m !== undefined && m.parentId === views.id && m.runId === views.runId && !m.siblingIds;
  return path.map((m, i) => {
    if (opens(m, path[i + 1])) return toMessageView(m, files);
    return toPathMessageView(m, files, opens(path[i - 1], m) ? path[i - 1] : m);
  });
}

/**
 * Marks on the messages: each ended turn's tokens on its last message, and each summary of the
 * oldest messages on the last message it covers (the messages themselves are all still there).
 * A turn answered again (regenerated: the path goes on from its messages with another turn's
 * answer) shows no tokens: its own answer is on another branch, and the figures are not about
 * what is on screen.
 */
export function withTurnMarks(
  messages: MessageView[],
  summaries: { throughSeq: number; text: string }[],
  runUsage: { id: string; usage: StoredUsage | null }[],
): MessageView[] {
  const lastOfRun = new Map<string, number>();
  messages.forEach((m, i) => m.runId && lastOfRun.set(m.runId, i));
  const marked = [...messages];
  for (const { id, usage } of runUsage) {
    const i = lastOfRun.get(id);
    if (i === undefined || !usage) continue;
    const next = messages[i + 1];
    const answeredAgain = next !== undefined && next.role === 'assistant' && next.runId !== id;
    if (!answeredAgain) marked[i] = { ...marked[i]!, usage: toTurnUsage(usage) };
  }
  for (const s of summaries) {
    const i = marked.findLastIndex((m) => m.seq <= s.throughSeq);
    if (i >= 0) marked[i] = { ...marked[i]!, summary: { text: s.text } };
  }
  return marked;
}

export function toTurnUsage(u: StoredUsage): TurnUsageView {
  return {
    inputTokens: u.inputTokens,
    outputTokens: u.outputTokens,
    cacheCreationInputTokens: u.cacheCreationInputTokens ?? 0,
    cacheReadInputTokens: u.cacheReadInputTokens ?? 0,
  };
}
