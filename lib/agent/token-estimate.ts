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
