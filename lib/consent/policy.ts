import type { Trust, Verdict } from '@/db/vocabulary';
import type { ToolAnnotations } from '@/lib/mcp/types';

import type { OrgToolVerdict } from './org-policy';

/**
 * The one decision table for one tool call (docs/ARCHITECTURE.md, "Consent"). It gives a
 * verdict — auto, ask or reject; only a person makes a decision. Annotations are hints a server
 * could lie about: a hint asking for MORE caution (destructive, open world) is honored from any
 * server; a hint asking for LESS (read-only, idempotent) only from one whose annotations are
 * trusted. Believing a server's annotations is not believing its content: once text the person
 * does not vouch for is in the conversation (`taintedBy`), it could steer the model, so a tool
 * that could act on it, carry it out, or fetch private data for it asks (`TAINTED_ROWS`).
 */

export type GrantState = 'active' | 'missing' | 'expired' | 'suspended';

export interface PolicyInput {
  /**
   * `trust`: whether the server's annotations are believed. `privateData`: the tool's server holds
   * the person's own data (the notes server, `holdsPrivateData` in lib/mcp/builtin); absent: it does not.
   */
  tool: { trust: Trust; annotations: ToolAnnotations; privateData?: boolean };
  grant: { state: GrantState; autoApprove: boolean };
  /** The tool is beyond what the user's plan allows. */
  overPlan: boolean;
  /** The organization's policy for this tool (./org-policy.ts); absent: it says nothing. */
  org?: OrgToolVerdict;
  /** The grant's argument constraint, if any, was not met by this input. */
  constraintUnmet: boolean;
  /** What about the input missed the constraint, in words, added to the reason (lib/consent/constraint-check.ts). */
  constraintWhy?: string | null;
  /**
   * The server whose content (not trusted by the person) has entered the conversation's context,
   * by name (lib/agent/taint.ts); null while none has.
   */
  taintedBy: string | null;
}

export interface PolicyVerdict {
  verdict: Verdict;
  /** Why, in words shown on the card and stored in the audit log. */
  reason: string;
  /** Shown on the approval card (e.g. the tool reaches outside systems). */
  warnings: string[];
  /** The organization makes every call of this tool ask, and why ("Allow for this session" is not offered). */
  orgAsks?: string;
}

/**
 * In a tainted conversation, what asks even where the rest of the table would run it, and why
 * (first match). A person's grant with auto-approve does not lift these: it was given for the
 * tool, not for whatever the conversation's content steers the model to do with it.
 */
const TAINTED_ROWS: ReadonlyArray<{ when: (tool: PolicyInput['tool']) => boolean; why: string }> = [
  {
    when: (t) => t.trust !== 'trusted',
    why: "its server's annotations are not trusted, so nothing says this tool only reads",
  },
  {
    when: (t) => t.annotations.readOnlyHint !== true,
    why: 'this tool is not marked read-only, so it could act on what the model was told',
  },
  {
    when: (t) => t.annotations.openWorldHint === true,
    why: 'this tool reaches outside systems, so it could send out what the conversation holds',
  },
  {
    when: (t) => t.privateData === true,
    why: "this tool reads the person's notes, which the model could be steered to fetch and pass on",
  },
];

/** Why this tool asks in a tainted conversation (one of `TAINTED_ROWS`), or null: it may run as if untainted. */
export function taintedAskWhy(tool: PolicyInput['tool']): string | null {
  return TAINTED_ROWS.find((row) => row.when(tool))?.why ?? null;
}

/** Read-only as far as we may believe it: only the word of a server whose annotations are trusted counts. */
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
  const orgAsks = input.org?.askAlways?.why;
  const result = (verdict: Verdict, reason: string): PolicyVerdict => ({ verdict, reason, warnings, ...(orgAsks ? { orgAsks } : {}) });

  if (input.grant.state === 'missing') return result('reject', 'This tool is not switched on for this conversation.');
  if (input.grant.state === 'expired') return result('reject', 'The grant for this tool has expired.');
  if (input.grant.state === 'suspended')
    return result('reject', "The tool's definition changed since it was granted; it is suspended until the person reviews it.");
  if (input.overPlan) return result('reject', "This tool is not included in the user's plan.");
  if (input.org?.refused) return result('reject', input.org.refused.why);
  if (input.constraintUnmet) {
    const outside = "The arguments are outside what the person's grant allows for this tool";
    return result('reject', input.constraintWhy ? `${outside}: ${input.constraintWhy}` : `${outside}.`);
  }
  if (input.tool.annotations.destructiveHint === true)
    return result('ask', 'The server marks this tool as destructive: it asks every time.');
  const tainted = input.taintedBy !== null ? taintedAskWhy(input.tool) : null;
  if (tainted) {
    return result('ask', `The conversation holds content from "${input.taintedBy}", which could steer the model; ${tainted}.`);
  }
  if (input.org?.askAlways) return result('ask', input.org.askAlways.why);
  if (isTrustedReadOnly(input.tool)) return result('auto', 'A trusted server marks this tool as read-only.');
  if (input.grant.autoApprove) return result('auto', 'The person allowed this tool to run without asking in this session.');
  return result(
    'ask',
    input.tool.trust === 'untrusted' ? 'Tools of untrusted servers need approval.' : 'This tool may change something: it needs approval.',
  );
}
