export type { ConversationSummary, ConversationView, MessageView, RunView } from '@/lib/chat/views';
export type { ToolCallView } from '@/lib/agent/tool-call-view';

export type ContentBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | { type: 'tool_result'; tool_use_id: string; is_error?: boolean; content: unknown }
  | { type: string; [key: string]: unknown };
