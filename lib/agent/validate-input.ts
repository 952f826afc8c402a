import { checkToolSchema, describeValidationError } from '@/lib/mcp/schema-guard';

/**
 * Validates a tool input against its schema (and a grant's constraint). Null when valid, else
 * one sentence naming the field, the value received and what is allowed.
 */
export function validateToolInput(schema: Record<string, unknown> | null | undefined, input: unknown): string | null {
  if (!schema) return null;
  const checked = checkToolSchema(schema);
  if (!checked.ok) return `The tool's input schema cannot be used: ${checked.reason}`;
  if (checked.validate(input)) return null;
  return describeValidationError(checked.validate.errors ?? [], input);
}
