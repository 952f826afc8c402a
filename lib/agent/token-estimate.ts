import type Anthropic from '@anthropic-ai/sdk';

/**
 * A rough count of the tokens a value costs the model, for budgets, not billing: the length of
 * its JSON divided by four (English text and JSON Schema average three to four characters per
 * token with Claude's tokenizer; four errs toward counting less, and a budget only needs the
 * order of magnitude). Deterministic, instant, and the same on every instance, which a real
 * tokenizer call would not be.
 */
export const CHARS_PER_TOKEN = 4;

export function estimateTokens(value: unknown): number {
  const json = JSON.stringify(value);
  return json === undefined ? 0 : Math.ceil(json.length / CHARS_PER_TOKEN);
}

/** What a list of tool definitions costs in the request: name, description and input schema of each. */
export function estimateToolTokens(tools: readonly Pick<Anthropic.Tool, 'name' | 'description' | 'input_schema'>[]): number {
  let total = 0;
  for (const t of tools) total += estimateTokens({ name: t.name, description: t.description, input_schema: t.input_schema });
  return total;
}

// Stored blocks are sent again on every step of a long conversation: their estimate is kept by
// identity, so a step costs the new blocks only (a block is never changed once stored).
const blockTokens = new WeakMap<object, number>();

/**
 * A block whose JSON length says nothing of its cost — an image or a PDF as base64 costs the
 * model by its pixels and pages, not its bytes — is given its estimate by whoever built it.
 */
export function presetBlockTokens(block: object, tokens: number): void {
  blockTokens.set(block, tokens);
}

/** What one content block costs (JSON length / 4), remembered for the block object. */
export function estimateBlockTokens(block: object): number {
  let n = blockTokens.get(block);
  if (n === undefined) {
    n = estimateTokens(block);
    blockTokens.set(block, n);
  }
  return n;
}

/** What a message costs: its blocks and a few tokens for its role and framing. */
export function estimateMessageTokens(message: Anthropic.MessageParam): number {
  if (typeof message.content === 'string') return estimateTokens(message.content) + 4;
  let total = 4;
  for (const b of message.content) total += estimateBlockTokens(b);
  return total;
}

/** The estimate of a whole request's input: system prompt, tool definitions and messages. */
export function estimateRequestTokens(request: {
  system?: string | Anthropic.TextBlockParam[];
  tools?: readonly object[];
  messages: readonly Anthropic.MessageParam[];
}): number {
  let total = estimateTokens(request.system ?? '');
  for (const t of request.tools ?? []) total += estimateBlockTokens(t);
  for (const m of request.messages) total += estimateMessageTokens(m);
  return total;
}
