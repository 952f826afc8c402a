export type { ConversationSummary, ConversationView, MessageView, RunView } from '@/lib/chat/views';
export type { ToolCallView } from '@/lib/agent/tool-call-view';

export type ContentBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | { type: 'tool_result'; tool_use_id: string; is_error?: boolean; content: unknown }
  | { type: string; [key: string]: unknown };

/**
 * What a tool card and a turn's timeline need of a call: the conversation's own calls and a shared
 * page's redacted ones (lib/share/views.ts, no argument hash, questions, sign-in or grant offer)
 * both fit. `detailsHidden`: the owner shared it without its arguments and result.
 */
export type CardToolCall = Omit<
  import('@/lib/agent/tool-call-view').ToolCallView,
  'argsHash' | 'inputRequests' | 'signIn' | 'allowForSession'
> & {
  detailsHidden?: boolean;
};
