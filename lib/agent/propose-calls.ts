import type Anthropic from '@anthropic-ai/sdk';

import type { NewToolCall } from '@/db/queries/tool-calls';
import { decideToolCall, type PolicyResult } from '@/lib/consent/policy';

import { argsHash } from './args-hash';
import type { ToolOffer } from './tool-host';
import { errorResult } from './tool-results';
import { validateToolInput } from './validate-input';

/**
 * Turns the tool_use blocks of one assistant message into tool call rows: routed by the name
 * offered, validated (an invalid input is answered with an error naming the field, and nobody is
 * asked), then decided by the policy table. Nothing runs here.
 */
export function proposeCalls(
  content: Anthropic.ContentBlockParam[],
  offer: ToolOffer,
  ctx: { runId: string; conversationId: string; userId: string; step: number; tainted: boolean },
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
      return {
        ...base,
        status: 'rejected',
        policy: { decision: 'reject', reason: 'No tool by this name was offered.' },
        result: errorResult(use.id, `There is no tool named "${use.name}" in this conversation. Use only the tools you were given.`),
        isError: true,
      };
    }
    const { tool, server, grant } = route;
    const described = {
      ...base,
      serverId: tool.serverId,
      serverName: server.displayName,
      tool: tool.name,
      trust: tool.trust,
      annotations: { ...tool.annotations },
      inputSchema: tool.inputSchema,
      outputSchema: tool.outputSchema ?? null,
    } satisfies NewToolCall;

    const invalid = validateToolInput(tool.inputSchema, input);
    if (invalid) {
      return {
        ...described,
        status: 'rejected',
        policy: { decision: 'reject', reason: 'The input does not match the tool schema.' },
        result: errorResult(use.id, `Invalid input for ${use.name}: ${invalid} Fix the input and call the tool again.`),
        isError: true,
      };
    }
    const constraintUnmet = grant.constraint ? validateToolInput(grant.constraint, input) !== null : false;
    const policy: PolicyResult = decideToolCall({
      tool: { trust: tool.trust, annotations: tool.annotations },
      grant: { state: grant.state, autoApprove: grant.autoApprove },
      overPlan: grant.overPlan,
      constraintUnmet,
      runTainted: ctx.tainted,
    });
    // The grant's constraint travels with the call: an edited input must meet it too.
    const stored = {
      decision: policy.decision,
      reason: policy.reason,
      grantId: grant.grantId,
      warnings: policy.warnings,
      constraint: grant.constraint,
    };
    if (policy.decision === 'reject') {
      return {
        ...described,
        status: 'rejected',
        policy: stored,
        result: errorResult(use.id, `${use.name} was not run: ${policy.reason}`),
        isError: true,
      };
    }
    if (policy.decision === 'auto')
      return { ...described, status: 'auto_approved', policy: stored, decision: { kind: 'auto', at: new Date().toISOString() } };
    return { ...described, status: 'pending_approval', policy: stored };
  });
}
