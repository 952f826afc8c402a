import { RUN_END_EVENTS, RUN_PAUSE_EVENTS, RUN_RUNNING_EVENTS } from '@/lib/agent/events';

import type { MessageView, RunView, ToolCallView } from './types';

/** Text being streamed for a message not yet stored, by block index. */
export type Partial = { messageId: string; runId: string | null; blocks: string[] };

export interface ChatState {
  messages: MessageView[];
  partials: Partial[];
  /** By tool_use id: the card shown where the model asked for the call. */
  toolCalls: Record<string, ToolCallView>;
  activeRun: RunView | null;
  lastRun: RunView | null;
  /** The newest stored event seen: where to follow from when a paused run resumes. */
  lastSeq: number;
  /** Latest progress report of running calls, by tool call id (live only). */
  progress: Record<string, { progress: number; total?: number; message?: string }>;
}

export function indexToolCalls(calls: ToolCallView[]): Record<string, ToolCallView> {
  return Object.fromEntries(calls.map((c) => [c.toolUseId, c]));
}

export type ChatEvent = { type: string; data: Record<string, unknown> & { seq: number | null; runId: string | null } };

/**
 * Applies one SSE event. Text deltas carry their offset, so the same text arriving twice
 * (live, then in a replay after reconnecting) is kept once.
 */
export function applyEvent(prev: ChatState, event: ChatEvent): ChatState {
  const seq = event.data.seq;
  const state = seq !== null && seq > prev.lastSeq ? { ...prev, lastSeq: seq } : prev;
  const { type, data } = event;
  if (type === 'tool_call.progress' && typeof data.toolCallId === 'string') {
    const p = data as unknown as { toolCallId: string; progress: number; total?: number; message?: string };
    return { ...state, progress: { ...state.progress, [p.toolCallId]: { progress: p.progress, total: p.total, message: p.message } } };
  }
  // Text streaming or a call starting means the run runs again (it may have been paused before).
  const resumed =
    RUN_RUNNING_EVENTS.has(type) && state.activeRun && state.activeRun.status !== 'running'
      ? { ...state, activeRun: { ...state.activeRun, status: 'running' } }
      : state;
  if (type.startsWith('tool_call.') && data.toolCall) {
    const call = data.toolCall as ToolCallView;
    return { ...resumed, toolCalls: { ...resumed.toolCalls, [call.toolUseId]: call } };
  }
  if (RUN_PAUSE_EVENTS.has(type)) {
    return state.activeRun ? { ...state, activeRun: { ...state.activeRun, status: String(data.status) } } : state;
  }
  if (RUN_END_EVENTS.has(type)) {
    const ended: RunView = {
      id: data.runId!,
      status: String(data.status ?? type.slice(4)),
      stopReason: (data.stopReason as string) ?? null,
      error: (data.error as RunView['error']) ?? null,
      afterSeq: state.activeRun?.afterSeq ?? 0,
    };
    return { ...state, activeRun: null, lastRun: ended, partials: [] };
  }
  switch (type) {
    case 'run.started':
      return { ...state, activeRun: { id: data.runId!, status: 'running', stopReason: null, error: null, afterSeq: (data.seq ?? 1) - 1 } };
    case 'message.delta':
      return applyDelta(
        resumed,
        data as unknown as { messageId: string; blockIndex: number; offset: number; text: string; runId: string | null },
      );
    case 'message.completed': {
      const message = data.message as MessageView;
      const exists = state.messages.some((m) => m.id === message.id);
      return {
        ...state,
        messages: exists
          ? state.messages
          : [...state.messages, { ...message, seq: Infinity, runId: data.runId, createdAt: new Date().toISOString() }],
        partials: state.partials.filter((p) => p.messageId !== message.id),
      };
    }
    default:
      return state;
  }
}

function applyDelta(
  state: ChatState,
  d: { messageId: string; blockIndex: number; offset: number; text: string; runId: string | null },
): ChatState {
  if (state.messages.some((m) => m.id === d.messageId)) return state;
  let partial = state.partials.find((p) => p.messageId === d.messageId);
  // A new message in the same run replaces an unfinished one (a step redone after a take-over).
  const others = state.partials.filter((p) => p.messageId !== d.messageId && p.runId !== d.runId);
  partial = partial ? { ...partial, blocks: [...partial.blocks] } : { messageId: d.messageId, runId: d.runId, blocks: [] };
  const current = partial.blocks[d.blockIndex] ?? '';
  if (d.offset > current.length) return state; // a gap: the stored copy of this text will fill it
  if (d.offset + d.text.length <= current.length) return state; // seen already
  partial.blocks[d.blockIndex] = current + d.text.slice(current.length - d.offset);
  return { ...state, partials: [...others, partial] };
}
