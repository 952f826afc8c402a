import type Anthropic from '@anthropic-ai/sdk';

import { errorToolResult } from '@/lib/mcp/to-tool-result';

/**
 * Without a tool host (no tools configured), a model that names a tool anyway gets an error
 * result it can act on, so the history stays valid (every tool_use answered).
 */
export function unavailableToolResults(content: Anthropic.ContentBlockParam[]): Anthropic.ToolResultBlockParam[] {
  return content
    .filter((b): b is Anthropic.ToolUseBlockParam => b.type === 'tool_use')
    .map((b) =>
      errorToolResult(
        b.id,
        `The tool "${b.name}" is not available in this conversation. Answer without it, or tell the person which tool you would need.`,
      ),
    );
}
