import type { Trust, Verdict } from '@/db/vocabulary';
import type { ToolAnnotations } from '@/lib/mcp/types';

/**
 * The one decision table for one tool call (docs/ARCHITECTURE.md, "Consent"). It gives a
 * verdict — auto, ask or reject; only a person makes a decision. Annotations are hints a server
 * could lie about: a hint asking for MORE caution (destructive, open world) is honored from any
 * server; a hint asking for LESS (read-only, idempotent) only from a trusted one.
 */

export type GrantState = 'active' | 'missing' | 'expired' | 'suspended';

export interface PolicyInput {
  tool: { trust: Trust; annotations: ToolAnnotations };
  grant: { state: GrantState; autoApprove: boolean };
  /** The tool is beyond what the user's plan allows. */
  overPlan: boolean;
  /** The grant's argument constraint, if any, was not met by this input. */
  constraintUnmet: boolean;
  /** What about the input missed the constraint, in words, added to the reason (lib/consent/constraint-check.ts). */
  constraintWhy?: string | null;
  /** Text from an untrusted server has entered the conversation's context (lib/agent/taint.ts). */
  runTainted: boolean;
}

export interface PolicyVerdict {
  verdict: Verdict;
  /** Why, in words shown on the card and stored in the audit log. */
  reason: string;
  /** Shown on the approval card (e.g. the tool reaches outside systems). */
  warnings: string[];
}

/** Read-only as far as we may believe it: only a trusted server's word counts. */
export function isTrustedReadOnly(tool: PolicyInput['tool']): boolean {
  return tool.trust === 'trusted' && tool.annotations.readOnlyHint === true && tool.annotations.destructiveHint !== true;
}

/** Safe to run again after an unknown outcome: read-only or idempotent, on a trusted server's word. */
export function isTrustedRepeatable(tool: PolicyInput['tool']): boolean {
  return (
    isTrustedReadOnly(tool) ||
    (tool.trust === 'trusted' && tool.annotations.idempotentHint === true && tool.annotations.destructiveHint !== true)
  );
}

export function verdictFor(input: PolicyInput): PolicyVerdict {
  const warnings = input.tool.annotations.openWorldHint === true ? ['This tool reaches outside systems.'] : [];
  const result = (verdict: Verdict, reason: string): PolicyVerdict => ({ verdict, reason, warnings });

  if (input.grant.state === 'missing') return result('reject', 'This tool is not switched on for this conversation.');
  if (input.grant.state === 'expired') return result('reject', 'The grant for this tool has expired.');
  if (input.grant.state === 'suspended')
    return result('reject', "The tool's definition changed since it was granted; it is suspended until the person reviews it.");
  if (input.overPlan) return result('reject', "This tool is not included in the user's plan.");
  if (input.constraintUnmet) {
    const outside = "The arguments are outside what the person's grant allows for this tool";
    return result('reject', input.constraintWhy ? `${outside}: ${input.constraintWhy}` : `${outside}.`);
  }
  if (input.tool.annotations.destructiveHint === true)
    return result('ask', 'The server marks this tool as destructive: it asks every time.');
  if (input.runTainted && !isTrustedReadOnly(input.tool)) {
    return result(
      'ask',
      'Text from an untrusted server has entered this conversation, so tools that write or reach outside need approval.',
    );
  }
  if (isTrustedReadOnly(input.tool)) return result('auto', 'A trusted server marks this tool as read-only.');
  if (input.grant.autoApprove) return result('auto', 'The person allowed this tool to run without asking in this session.');
  return result(
    'ask',
    input.tool.trust === 'untrusted' ? 'Tools of untrusted servers need approval.' : 'This tool may change something: it needs approval.',
  );
}
