import type { EventPayload } from '@/lib/agent/event-payloads';
import type { RunEventType } from '@/lib/agent/events';
import { toTurnUsage } from '@/lib/chat/views';

import type { MessageView, RunView, ToolCallView } from '../types';

/** Text being streamed for a message not yet stored, by block index. */
export type Partial = {
  messageId: string;
  runId: string | null;
  blocks: string[];
  /** Indexes of the blocks that are the model's thinking (shown folded), not its answer. */
  thinking: number[];
};

export interface ChatState {
  /** The end of the path on screen, after the earlier pages the person scrolled back to (./earlier-pages.ts). */
  messages: MessageView[];
  /** How many messages of the path come before `messages`, not read yet. */
  earlier: number;
  partials: Partial[];
  /** By tool_use id: the card shown where the model asked for the call. */
  toolCalls: Record<string, ToolCallView>;
  activeRun: RunView | null;
  lastRun: RunView | null;
  /** The newest stored event seen: where to follow from when a paused run resumes. */
  lastSeq: number;
  /** Latest progress report of running calls, by tool call id (live only). */
  progress: Record<string, { progress: number; total?: number; message?: string }>;
  /** The model call failed before answering and is tried again: what the person reads, until the answer starts. */
  retrying: { message: string; attempt: number } | null;
}

export function indexToolCalls(calls: ToolCallView[]): Record<string, ToolCallView> {
  return Object.fromEntries(calls.map((c) => [c.toolUseId, c]));
}

/** Every event carries its seq (null for a live-only delta) and its run. */
type Envelope = { seq: number | null; runId: string | null };
/** One event as the page receives it: its name and the data that name carries (lib/agent/event-payloads.ts). */
export type ChatEvent = { [T in RunEventType]: { type: T; data: EventPayload<T> & Envelope } }[RunEventType];

const running = (state: ChatState): ChatState =>
  state.activeRun && state.activeRun.status !== 'running' ? { ...state, activeRun: { ...state.activeRun, status: 'running' } } : state;

/**
 * Applies one SSE event. Text deltas carry their offset, so the same text arriving twice
 * (live, then in a replay after reconnecting) is kept once.
 */
export function applyEvent(prev: ChatState, event: ChatEvent): ChatState {
  const seq = event.data.seq;
  const state = seq !== null && seq > prev.lastSeq ? { ...prev, lastSeq: seq } : prev;
  switch (event.type) {
    case 'run.started': {
      const { runId, seq: at } = event.data;
      return runId
        ? { ...state, activeRun: { id: runId, status: 'running', stopReason: null, error: null, afterSeq: (at ?? 1) - 1 } }
        : state;
    }
    case 'message.delta':
      // Text streaming means the run runs again (it may have been paused before).
      return applyDelta({ ...running(state), retrying: null }, event.data);
    case 'run.retrying':
      return { ...running(state), retrying: { message: event.data.message, attempt: event.data.attempt } };
    case 'message.completed': {
      const { message, runId } = event.data;
      const exists = state.messages.some((m) => m.id === message.id);
      return {
        ...state,
        retrying: null,
        messages: exists ? state.messages : [...state.messages, { ...message, seq: Infinity, runId, createdAt: new Date().toISOString() }],
        partials: state.partials.filter((p) => p.messageId !== message.id),
      };
    }
    case 'message.discarded':
      // Another instance took the run over and redoes the step: this text will never be stored.
      return { ...state, partials: state.partials.filter((p) => p.messageId !== event.data.messageId) };
    case 'tool_call.progress': {
      const { toolCallId, progress, total, message } = event.data;
      return { ...state, progress: { ...state.progress, [toolCallId]: { progress, total, message } } };
    }
    case 'tool_call.task_status': {
      // The server's task moved on: the card shows its status and message (MCP Tasks).
      const { toolCallId, status, statusMessage } = event.data;
      const call = Object.values(state.toolCalls).find((c) => c.id === toolCallId);
      if (!call) return state;
      return { ...state, toolCalls: { ...state.toolCalls, [call.toolUseId]: { ...call, task: { status, statusMessage } } } };
    }
    case 'tool_call.started':
    case 'tool_call.task':
    case 'tool_call.proposed':
    case 'tool_call.approval_requested':
    case 'tool_call.decided':
    case 'tool_call.input_requested':
    case 'tool_call.sign_in_requested':
    case 'tool_call.completed': {
      // A call starting means the run runs again (after a decision, an answer or a sign-in).
      const call = event.data.toolCall;
      // A view's call is its view card's (tool-call/view-call-news.ts), not a card where the model asked.
      if (call.askedByView) return state;
      const base = event.type === 'tool_call.started' ? running(state) : state;
      return {
        ...base,
        retrying: null,
        toolCalls: { ...base.toolCalls, [call.toolUseId]: withKnownRound(call, base.toolCalls[call.toolUseId]) },
      };
    }
    case 'history.summarized': {
      // The marker sits under the last message the summary covers; the messages stay.
      const { throughMessageId, text } = event.data;
      return { ...state, messages: state.messages.map((m) => (m.id === throughMessageId ? { ...m, summary: { text } } : m)) };
    }
    case 'run.awaiting_approval':
    case 'run.awaiting_input':
    case 'run.awaiting_sign_in':
      return state.activeRun ? { ...state, activeRun: { ...state.activeRun, status: event.data.status } } : state;
    case 'run.completed':
    case 'run.failed':
    case 'run.cancelled': {
      const d = event.data;
      const ended: RunView = {
        id: d.runId ?? state.activeRun?.id ?? '',
        status: d.status,
        stopReason: d.stopReason,
        error: d.error ?? null,
        afterSeq: state.activeRun?.afterSeq ?? 0,
      };
      return {
        ...state,
        activeRun: null,
        lastRun: ended,
        partials: [],
        retrying: null,
        messages: withTurnUsage(state.messages, ended.id, d.usage),
      };
    }
  }
}

/** The ended turn's tokens, on its last message (as the conversation's JSON has them). */
/**
 * A replayed `input_requested` stored before answers named their round parses with no round; the
 * card loaded from the database knows it. Keep that round while the call still waits for the same
 * answer, or the answer would go without it and be refused (lib/agent/answer-input.ts).
 */
function withKnownRound(call: ToolCallView, known: ToolCallView | undefined): ToolCallView {
  if (call.status !== 'awaiting_input' || call.inputRound !== null || known?.status !== 'awaiting_input') return call;
  return known.inputRound === null ? call : { ...call, inputRound: known.inputRound };
}

function withTurnUsage(messages: MessageView[], runId: string, usage: EventPayload<'run.completed'>['usage']): MessageView[] {
  const i = messages.findLastIndex((m) => m.runId === runId);
  if (i < 0) return messages;
  const marked = [...messages];
  marked[i] = { ...marked[i]!, usage: toTurnUsage(usage) };
  return marked;
}

function applyDelta(state: ChatState, d: EventPayload<'message.delta'> & Envelope): ChatState {
  if (state.messages.some((m) => m.id === d.messageId)) return state;
  let partial = state.partials.find((p) => p.messageId === d.messageId);
  // A new message in the same run replaces an unfinished one (a step redone after a take-over).
  const others = state.partials.filter((p) => p.messageId !== d.messageId && p.runId !== d.runId);
  partial = partial ? { ...partial, blocks: [...partial.blocks] } : { messageId: d.messageId, runId: d.runId, blocks: [], thinking: [] };
  if (d.kind === 'thinking' && !partial.thinking.includes(d.blockIndex)) partial.thinking = [...partial.thinking, d.blockIndex];
  const current = partial.blocks[d.blockIndex] ?? '';
  if (d.offset > current.length) return state; // a gap: the stored copy of this text will fill it
  if (d.offset + d.text.length <= current.length) return state; // seen already
  partial.blocks[d.blockIndex] = current + d.text.slice(current.length - d.offset);
  return { ...state, partials: [...others, partial] };
}
