// Shapes the demo model reads and writes. They are deliberately looser than
// the SDK's own types: the demo must accept whatever a host sends (it is a
// stand-in for the real API, which also accepts JSON it has never seen) and
// write only the fields the real API puts on the wire.

/** A JSON Schema, as far as the demo reads one (tools' `input_schema`). */
export type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  default?: unknown;
  enum?: unknown[];
  const?: unknown;
  examples?: unknown[];
  minimum?: number;
  exclusiveMinimum?: number | boolean;
  maximum?: number;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  $ref?: string;
  $defs?: Record<string, JsonSchema>;
  definitions?: Record<string, JsonSchema>;
  [key: string]: unknown;
};

/** One content block of a request message (only the fields the demo reads). */
export type RequestBlock = {
  type: string;
  text?: string;
  id?: string;
  name?: string;
  tool_use_id?: string;
  is_error?: boolean;
  content?: string | RequestBlock[];
  [key: string]: unknown;
};

export type RequestMessage = {
  role: string;
  content: string | RequestBlock[];
};

export type OfferedTool = {
  name: string;
  input_schema?: JsonSchema;
  [key: string]: unknown;
};

/** The validated body of `POST /v1/messages`. */
export type DemoRequest = {
  model: string;
  max_tokens: number;
  messages: RequestMessage[];
  tools: OfferedTool[];
  stream: boolean;
  /** The system prompt as text (blocks joined), '' when none. */
  system?: string;
  /** Extended thinking asked for (`thinking: { type: 'enabled', budget_tokens }`), else null. */
  thinking?: { budgetTokens: number } | null;
};

export type ReplyTextBlock = { type: 'text'; text: string };
export type ReplyToolUseBlock = {
  type: 'tool_use';
  id: string;
  name: string;
  input: Record<string, unknown>;
};
/** Extended thinking, as the API sends it: the text and the signature the next request must carry back unchanged. */
export type ReplyThinkingBlock = { type: 'thinking'; thinking: string; signature: string };
export type ReplyRedactedThinkingBlock = { type: 'redacted_thinking'; data: string };
export type ReplyBlock = ReplyTextBlock | ReplyToolUseBlock | ReplyThinkingBlock | ReplyRedactedThinkingBlock;

export type StopReason = 'end_turn' | 'tool_use' | 'max_tokens';

/** What the demo model decided to say, before it is put on the wire. */
export type DemoReply = {
  blocks: ReplyBlock[];
  stopReason: StopReason;
  /** `[demo:fail-midstream]`: break the answer off after a few words. */
  failMidstream: boolean;
};
