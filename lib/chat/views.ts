import type { ConversationRow } from '@/db/queries/conversations';
import type { MessageRow } from '@/db/queries/messages';
import type { RunRow } from '@/db/queries/runs';
import type { StoredMessageContent, StoredMessageOrigin, StoredRunError } from '@/db/stored-json';
import type { RunStatus } from '@/db/vocabulary';
import { THINKING_BUDGET } from '@/lib/agent/thinking';
import type { ToolCallView } from '@/lib/agent/tool-call-view';
import type { ForkOrigin } from '@/lib/share/views';

export interface ConversationSummary {
  id: string;
  title: string;
  model: string;
  /** Extended thinking for the next turns: off, or on with a budget of tokens. */
  thinking: { enabled: boolean; budgetTokens: number };
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
}

export interface ConversationView extends ConversationSummary {
  /** Set when the conversation was continued from someone's share link (lib/share). */
  forkedFrom: ForkOrigin | null;
  messages: MessageView[];
  toolCalls: ToolCallView[];
  activeRun: RunView | null;
  lastRun: RunView | null;
  lastSeq: number;
}

export function toSummary(c: ConversationRow): ConversationSummary {
  return {
    id: c.id,
    title: c.title,
    model: c.model,
    thinking: { enabled: c.thinking?.enabled === true, budgetTokens: c.thinking?.budgetTokens ?? THINKING_BUDGET.default },
    createdAt: c.createdAt.toISOString(),
    updatedAt: c.updatedAt.toISOString(),
  };
}

export function toRunView(r: RunRow): RunView {
  return { id: r.id, status: r.status, stopReason: r.stopReason, error: r.error ?? null, afterSeq: Math.max(0, (r.startSeq ?? 1) - 1) };
}

export function toMessageView(m: MessageRow): MessageView {
  return {
    id: m.id,
    seq: m.seq,
    role: m.role,
    content: m.content,
    runId: m.runId,
    stopReason: m.stopReason,
    createdAt: m.createdAt.toISOString(),
    ...(m.origin && { origin: m.origin }),
  };
}
