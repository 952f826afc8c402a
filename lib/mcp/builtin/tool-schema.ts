import type { CallToolResult, StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import type { z } from 'zod';

import { preview } from '../schema-errors';

/**
 * Shared plumbing for the first-party servers' tool schemas and results. The SDK validates
 * arguments with `~standard.validate` and turns failures into an `isError` result whose text is
 * `path: message` per issue; this wrapper makes each message say what was received and what is
 * allowed, because that text is all the model gets to correct its call.
 */

function issueMessage(issue: z.core.$ZodIssue, allowedKeys: string[]): string {
  if (issue.code === 'unrecognized_keys') {
    return `${issue.message}: allowed keys are ${allowedKeys.join(', ')} (nothing else is accepted)`;
  }
  // Zod's own invalid_type message already names what it received.
  if (issue.code === 'invalid_type') return issue.message;
  return `${issue.message} (received ${preview(issue.input)})`;
}

/**
 * A strict zod object as the SDK's standard schema, with clearer issue messages and optional
 * extra JSON Schema keywords for rules zod cannot express in JSON (e.g. `minProperties`).
 */
export function toolInput<T extends z.ZodObject>(
  schema: T,
  extraJson: Record<string, unknown> = {},
): StandardSchemaWithJSON<z.input<T>, z.output<T>> {
  const std = schema['~standard'];
  const allowedKeys = Object.keys(schema.shape);
  return {
    '~standard': {
      vendor: std.vendor,
      version: 1,
      validate(value: unknown) {
        const parsed = schema.safeParse(value, { reportInput: true });
        if (parsed.success) return { value: parsed.data };
        return {
          issues: parsed.error.issues.map((issue) => ({
            path: issue.path.filter((p): p is string | number => typeof p !== 'symbol'),
            message: issueMessage(issue, allowedKeys),
          })),
        };
      },
      jsonSchema: {
        input: (opts) => ({ ...std.jsonSchema.input(opts), ...extraJson }),
        output: (opts) => std.jsonSchema.output(opts),
      },
    },
  };
}

/** Data as `structuredContent` plus the same JSON as text, for clients that only read text. */
export function dataResult<T extends Record<string, unknown>>(data: T): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(data) }], structuredContent: data };
}

/** An MCP result marking the call failed (isError), with what went wrong and what to do instead. Not the
 * Anthropic `tool_result` block: the host builds that from it (errorToolResult in lib/mcp/to-tool-result.ts). */
export function mcpErrorResult(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}
