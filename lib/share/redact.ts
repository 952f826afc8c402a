import type Anthropic from '@anthropic-ai/sdk';

import { fileRefIds, fileRefOf } from '@/db/file-refs';
import type { MessageRow } from '@/db/queries/messages';
import type { EndedRun } from '@/db/queries/shares';
import type { NewToolCall, ToolCallRow } from '@/db/queries/tool-calls';
import type { StoredMessageContent, StoredToolResult } from '@/db/stored-json';
import { argsHash } from '@/lib/agent/args-hash';
import { toToolCallView, type ToolCallView } from '@/lib/agent/tool-call-view';
import type { FileView } from '@/lib/files/view';

import type { SharedMessageView, SharedToolCallView } from './views';

/**
 * What a share link gives away, decided in one place (pure): the shared page and its JSON carry
 * exactly these views, and a fork copies exactly what they show. Nothing of the owner's account
 * goes along — no grant, no server id or URL, no deciding user, no stored full result — and with
 * tool details hidden, no arguments and no results either.
 */

/** What a copied result says where the owner hid it: the history stays valid (every tool_use keeps its result). */
export const HIDDEN_RESULT_TEXT = 'Hidden by the owner of the shared conversation: the tool’s arguments and result were not shared.';

/**
 * A message as the shared page shows it, or null when nothing of it shows (a turn's tool results
 * only). Its files are listed when the owner included them (`files`: those of the snapshot), else
 * only counted — no id, name or URL of a hidden file is in the view.
 */
export function toSharedMessage(m: MessageRow, files: ReadonlyMap<string, FileView> | null): SharedMessageView | null {
  if (!isShown(m)) return null;
  const content = readableBlocks(m.content);
  const fileIds = fileRefIds(m.content);
  const shown = files && fileIds.flatMap((id) => files.get(id) ?? []);
  return {
    id: m.id,
    seq: m.seq,
    role: m.role,
    content,
    runId: m.runId,
    stopReason: m.stopReason,
    createdAt: m.createdAt.toISOString(),
    ...(shown?.length && { files: shown }),
    ...(!files && fileIds.length && { filesHidden: fileIds.length }),
  };
}

/**
 * Whether the shared page shows anything of a message: not when it carries a turn's tool results
 * only, nor what interactive views told the model (theirs, not the person's words; a share shows no view).
 */
export function isShown(m: Pick<MessageRow, 'content' | 'origin'>): boolean {
  if (m.origin?.kind === 'view_context') return false;
  return m.content.some((b) => b.type === 'text' || b.type === 'tool_use') || fileRefIds(m.content).length > 0;
}

/** What a fork's copy says where the owner did not share the files of a message. */
export const HIDDEN_FILES_TEXT = 'Attached files were not shared by the owner of the shared conversation.';

/**
 * Text and tool_use blocks only — never a tool_result (the card carries what is shown of it) nor
 * anything else a later model feature may store — and a tool_use without its input (the card
 * shows the arguments when the owner included them).
 */
function readableBlocks(content: StoredMessageContent): StoredMessageContent {
  return content.flatMap((b): StoredMessageContent => {
    if (b.type === 'text') return [{ type: 'text', text: b.text }];
    if (b.type === 'tool_use') return [{ type: 'tool_use', id: b.id, name: b.name, input: {} }];
    return [];
  });
}

/** A tool call as the shared page shows it. */
export function toSharedToolCall(c: ToolCallRow, includeToolDetails: boolean): SharedToolCallView {
  const view = toToolCallView(c);
  return {
    ...withoutOwnerOnlyFields(view),
    // The call's own id leads to the owner's activity log; the page keys cards by the tool_use id.
    id: c.toolUseId,
    // What a live view said for the model belongs with the live view, which a shared page never shows.
    viewContext: null,
    ...(includeToolDetails
      ? {}
      : {
          input: {},
          result: null,
          verdict: null,
          decision: view.decision ? { kind: view.decision.kind, reason: null, edited: false } : null,
        }),
    detailsHidden: !includeToolDetails,
  };
}

/** What only the owner's page uses: the argument hash a decision echoes, a waiting call's question or sign-in, the session offer. */
function withoutOwnerOnlyFields(view: ToolCallView): Omit<ToolCallView, 'argsHash' | 'inputRequests' | 'signIn' | 'allowForSession'> {
  const shown: Partial<ToolCallView> = { ...view };
  delete shown.argsHash;
  delete shown.inputRequests;
  delete shown.signIn;
  delete shown.allowForSession;
  return shown as Omit<ToolCallView, 'argsHash' | 'inputRequests' | 'signIn' | 'allowForSession'>;
}

/**
 * A snapshot's message as its fork stores it: what the shared page shows, plus the tool results
 * the next request needs — verbatim when the owner included tool details, else a stub that says
 * they were hidden (and tool_use inputs emptied).
 */
export function forkMessageContent(
  content: StoredMessageContent,
  includeToolDetails: boolean,
  copiedFiles: ReadonlyMap<string, string> | null,
): StoredMessageContent {
  const fileIds = fileRefIds(content);
  const hidden: StoredMessageContent = !copiedFiles && fileIds.length ? [{ type: 'text', text: `[${HIDDEN_FILES_TEXT}]` }] : [];
  return [...hidden, ...forkBlocks(content, includeToolDetails, copiedFiles)];
}

/** Each block of a forked message; a file reference points at the reader's copy (or goes, when files were not shared). */
function forkBlocks(content: StoredMessageContent, includeToolDetails: boolean, copiedFiles: ReadonlyMap<string, string> | null) {
  return content.flatMap((b): StoredMessageContent => {
    const fileId = fileRefOf(b);
    if (fileId !== null) {
      const copy = copiedFiles?.get(fileId);
      return copy && (b.type === 'image' || b.type === 'document') ? [{ ...b, source: { type: 'file', file_id: copy } }] : [];
    }
    if (b.type === 'text') return b.text ? [{ type: 'text', text: b.text }] : [];
    if (b.type === 'tool_use') return [{ type: 'tool_use', id: b.id, name: b.name, input: includeToolDetails ? b.input : {} }];
    if (b.type === 'tool_result') return [includeToolDetails ? b : hiddenResult(b)];
    return [];
  });
}

function hiddenResult(b: Anthropic.ToolResultBlockParam): StoredToolResult {
  return { type: 'tool_result', tool_use_id: b.tool_use_id, ...(b.is_error ? { is_error: true } : {}), content: HIDDEN_RESULT_TEXT };
}

/** Who decided a copied call: the owner of the shared conversation, whose id does not travel. */
export const FORK_DECIDER = 'owner-of-shared-conversation';

/** Built-in servers have the same id for everyone; a server of the owner's own is named, never identified. */
const sharedServerId = (id: string | null) => (id?.startsWith('builtin-') ? id : null);

/** A snapshot's tool call as its fork stores it: finished, decided by the owner, nothing to run again. */
export function forkToolCall(c: ToolCallRow, runId: string, includeToolDetails: boolean): Omit<NewToolCall, 'conversationId' | 'userId'> {
  const input = includeToolDetails ? c.input : {};
  return {
    runId,
    step: c.step,
    position: c.position,
    toolUseId: c.toolUseId,
    modelName: c.modelName,
    serverId: sharedServerId(c.serverId),
    serverName: c.serverName,
    tool: c.tool,
    // Kept so the copy says a view existed; with no server of the visitor's behind it, its card
    // shows the static note, never a frame (ToolCallView.viewCopy).
    viewUri: sharedServerId(c.serverId) === null ? c.viewUri : null,
    input,
    argsHash: argsHash(input),
    status: c.status,
    verdict: c.verdict && {
      ...c.verdict,
      grantId: null,
      constraint: null,
      ...(includeToolDetails ? {} : { reason: 'Decided by the owner of the shared conversation.' }),
    },
    trust: c.trust,
    annotations: c.annotations,
    decision: c.decision && {
      v: 1,
      kind: c.decision.kind,
      by: FORK_DECIDER,
      at: c.decision.at,
      ...(includeToolDetails && c.decision.reason ? { reason: c.decision.reason } : {}),
      ...(includeToolDetails && c.decision.editedFrom ? { editedFrom: c.decision.editedFrom } : {}),
    },
    result: c.result && (includeToolDetails ? c.result : hiddenResult(c.result)),
    isError: c.isError,
    resultChars: includeToolDetails ? c.resultChars : null,
    resultTruncated: includeToolDetails ? c.resultTruncated : null,
    attempts: c.attempts,
    createdAt: c.createdAt,
    startedAt: c.startedAt,
    endedAt: c.endedAt,
  };
}

/** The turns of a snapshot as the fork stores them: ended, with fresh ids (the copies point at them). */
export function forkRuns(runs: EndedRun[], newId: () => string): { runs: EndedRun[]; idOf: Map<string, string> } {
  const idOf = new Map(runs.map((r) => [r.id, newId()]));
  return { runs: runs.map((r) => ({ ...r, id: idOf.get(r.id)! })), idOf };
}
