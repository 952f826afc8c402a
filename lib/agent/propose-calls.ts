import type Anthropic from '@anthropic-ai/sdk';

import type { NewToolCall } from '@/db/queries/tool-calls';
import type { StoredVerdict } from '@/db/stored-json';
import { constraintUnmetBy } from '@/lib/consent/constraint-check';
import { verdictFor } from '@/lib/consent/policy';
import { withInputDefaults } from '@/lib/mcp/schema-guard';
import { errorToolResult } from '@/lib/mcp/to-tool-result';
import type { CatalogTool, McpServerConfig } from '@/lib/mcp/types';

import { argsHash } from './args-hash';
import { SEARCH_TOOLS_TOOL_NAME } from './search-tools-tool';
import type { ToolOffer } from './tool-host';

/**
 * Turns the tool_use blocks of one assistant message into tool call rows: routed by the name
 * offered, validated (an invalid input is answered with an error naming the field, and nobody is
 * asked), then decided by the policy table. Nothing runs here.
 */
export function proposeCalls(
  content: Anthropic.ContentBlockParam[],
  offer: ToolOffer,
  /** `taintedBy`: the server whose untrusted content is in the conversation, by name; null: none is. */
  ctx: { runId: string; conversationId: string; userId: string; step: number; taintedBy: string | null },
): NewToolCall[] {
  const uses = content.filter((b): b is Anthropic.ToolUseBlockParam => b.type === 'tool_use');
  return uses.map((use, position) => {
    const input = (use.input ?? {}) as Record<string, unknown>;
    const base: NewToolCall = {
      runId: ctx.runId,
      conversationId: ctx.conversationId,
      userId: ctx.userId,
      step: ctx.step,
      position,
      toolUseId: use.id,
      modelName: use.name,
      input,
      argsHash: argsHash(input),
    };
    const route = offer.routes.get(use.name);
    if (!route) {
      const off = offer.unavailable?.[use.name];
      // A tool the person has but did not switch on: the model is told why, and that only the person can.
      // With a tool search offered, an enabled tool may exist but not be listed yet: say how to get it.
      const message = off
        ? `${use.name} is not available in this conversation: ${off} ` +
          'Only the person can switch tools on (in the Tools panel of this conversation); tell them, and do not retry it.'
        : offer.routes.has(SEARCH_TOOLS_TOOL_NAME)
          ? `No tool named "${use.name}" was offered on this step. ` +
            `If it is one of the enabled tools, find it with ${SEARCH_TOOLS_TOOL_NAME} first.`
          : `There is no tool named "${use.name}" in this conversation. Use only the tools you were given.`;
      return {
        ...base,
        status: 'rejected',
        verdict: rejection(off ?? 'No tool by this name was offered.'),
        result: errorToolResult(use.id, message),
        isError: true,
      };
    }
    const { tool, server, grant } = route;
    // The input as the server will take it (defaults filled): the one input that is hashed,
    // shown on the card, checked against the grant, stored, audited and sent.
    const { input: filled, problem: invalid } = withInputDefaults(tool.inputSchema, input);
    const described = {
      ...base,
      ...calledToolFields(server, tool, filled),
      viewUri: tool.view?.resourceUri ?? null,
    } satisfies NewToolCall;

    if (invalid) {
      return {
        ...described,
        status: 'rejected',
        verdict: rejection('The input does not match the tool schema.'),
        result: errorToolResult(use.id, `Invalid input for ${use.name}: ${invalid} Fix the input and call the tool again.`),
        isError: true,
      };
    }
    const constraintWhy = constraintUnmetBy(grant.constraint, filled);
    const judged = verdictFor({
      tool: { trust: tool.trust, annotations: tool.annotations, privateData: server.privateData === true },
      grant: { state: grant.state, autoApprove: grant.autoApprove },
      overPlan: grant.overPlan,
      org: grant.org,
      constraintUnmet: constraintWhy !== null,
      constraintWhy,
      taintedBy: ctx.taintedBy,
    });
    // The grant's constraint travels with the call: an edited input must meet it too.
    const verdict: StoredVerdict = {
      v: 1,
      ...judged,
      grantId: grant.grantId,
      constraint: grant.constraint,
      tainted: ctx.taintedBy !== null,
    };
    if (judged.verdict === 'reject') {
      return {
        ...described,
        status: 'rejected',
        verdict,
        result: errorToolResult(use.id, `${use.name} was not run: ${judged.reason}`),
        isError: true,
      };
    }
    return { ...described, status: judged.verdict === 'auto' ? 'auto_approved' : 'pending_approval', verdict };
  });
}

function rejection(reason: string): StoredVerdict {
  return { v: 1, verdict: 'reject', reason, warnings: [], grantId: null, constraint: null };
}

/**
 * What a call's row records of its tool and server, the same for the model's calls and an
 * interactive view's (lib/agent/view-calls.ts): the input as it will be sent, hashed, and the
 * tool's trust, hints and schemas as listed when it was called.
 */
export function calledToolFields(server: McpServerConfig, tool: CatalogTool, input: Record<string, unknown>) {
  return {
    input,
    argsHash: argsHash(input),
    serverId: server.id,
    serverName: server.displayName,
    tool: tool.name,
    trust: tool.trust,
    // Its result taints the conversation unless the person trusts this server's content (lib/agent/taint.ts).
    contentTrusted: server.trustContent === true,
    annotations: { ...tool.annotations },
    inputSchema: tool.inputSchema,
    outputSchema: tool.outputSchema ?? null,
    taskSupport: tool.taskSupport ?? null,
  } satisfies Partial<NewToolCall>;
}
