import type Anthropic from '@anthropic-ai/sdk';

/**
 * Until the MCP layer routes calls, no tool is offered; a model that names one anyway gets an
 * error result it can act on, so the history stays valid (every tool_use answered).
 */
export function unavailableToolResults(content: Anthropic.ContentBlockParam[]): Anthropic.ToolResultBlockParam[] {
  return content
    .filter((b): b is Anthropic.ToolUseBlockParam => b.type === 'tool_use')
    .map((b) => ({
      type: 'tool_result',
      tool_use_id: b.id,
      is_error: true,
      content: `The tool "${b.name}" is not available in this conversation. Answer without it, or tell the person which tool you would need.`,
    }));
}
