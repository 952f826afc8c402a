import type { EarlierMessagesView } from '@/lib/chat/views';

import type { ConversationView, MessageView, ToolCallView } from '../types';
import { indexToolCalls, type ChatState } from './chat-state';

/*
 * The page holds the end of the conversation's path and the earlier pages the person scrolled back
 * to (lib/chat/path-page.ts). These keep the two in step: an earlier page goes in front only when it
 * is the one before the page's first message, and reading the conversation again keeps the earlier
 * messages the page already has wherever the new end still follows them.
 */

/** The ids of the tool calls a message asked for (its tool_use blocks). */
function toolUseIds(messages: readonly MessageView[]): Set<string> {
  return new Set(
    messages.flatMap((m) => (Array.isArray(m.content) ? m.content.flatMap((b) => (b.type === 'tool_use' ? [b.id] : [])) : [])),
  );
}

function callsOf(messages: readonly MessageView[], calls: Record<string, ToolCallView>): Record<string, ToolCallView> {
  const ids = toolUseIds(messages);
  return Object.fromEntries(Object.entries(calls).filter(([toolUseId]) => ids.has(toolUseId)));
}

/** The page before `beforeId` put in front; unchanged when the page's first message is no longer `beforeId` (a stale answer). */
export function withEarlierPage(state: ChatState, beforeId: string, page: EarlierMessagesView): ChatState {
  if (state.messages[0]?.id !== beforeId) return state;
  return {
    ...state,
    messages: [...page.messages, ...state.messages],
    toolCalls: { ...indexToolCalls(page.toolCalls), ...state.toolCalls },
    earlier: page.earlier,
  };
}

/**
 * The conversation read again: its end replaces the page's, after the earlier messages the page
 * has that come before it on its path (a message's path back to the first never changes, so those
 * are still right); when the new end does not start at a message the page has, it stands alone.
 */
export function synced(state: ChatState, v: ConversationView): ChatState {
  const at = v.messages.length > 0 ? state.messages.findIndex((m) => m.id === v.messages[0]!.id) : -1;
  const kept = at > 0 ? state.messages.slice(0, at) : [];
  return {
    ...state,
    messages: [...kept, ...v.messages],
    earlier: v.earlier - kept.length,
    toolCalls: { ...callsOf(kept, state.toolCalls), ...indexToolCalls(v.toolCalls) },
    activeRun: v.activeRun,
    lastRun: v.lastRun,
    lastSeq: Math.max(state.lastSeq, v.lastSeq),
    partials: [],
    retrying: null,
  };
}
