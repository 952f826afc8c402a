import type { OrgToolVerdict } from './org-policy';
import { taintedAskWhy, type PolicyInput } from './policy';

/**
 * Would the decision table honor "auto-approve" (a grant's `auto_approve`, "Allow for this
 * session") for this tool? Null when it would; else why not, in words for the panel and the
 * approval card. It never would for a destructive tool (that row comes first: it asks every
 * time), nor, while content the person does not vouch for is in the conversation, for a tool of
 * the table's tainted rows (not read-only on a trusted server's word, reaching outside systems,
 * reading the person's notes: they come before the auto-approve row). Offering a switch that does
 * nothing would mislead the person. Nor where the person's organization says every call of the
 * tool asks (`org.askAlways`, ./org-policy.ts).
 */
export function autoApproveProblem(tool: PolicyInput['tool'], tainted: boolean, org?: OrgToolVerdict): string | null {
  if (tool.annotations.destructiveHint === true) {
    return 'The server marks this tool as destructive: it asks every time, whatever was allowed before.';
  }
  const why = tainted ? taintedAskWhy(tool) : null;
  if (why) {
    return `This conversation holds content you do not trust, which could steer the model; ${why}, so it asks every time.`;
  }
  return org?.askAlways?.why ?? null;
}
