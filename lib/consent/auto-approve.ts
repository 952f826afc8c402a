import { isTrustedReadOnly, type PolicyInput } from './policy';

/**
 * Would the decision table honor "auto-approve" (a grant's `auto_approve`, "Allow for this
 * session") for this tool? Null when it would; else why not, in words for the panel and the
 * approval card. It never would for a destructive tool (that row comes first: it asks every
 * time), nor, while untrusted text is in the conversation, for a tool that is not trusted
 * read-only (the tainted row comes before the auto-approve row). Offering a switch that does
 * nothing would mislead the person.
 */
export function autoApproveProblem(tool: PolicyInput['tool'], tainted: boolean): string | null {
  if (tool.annotations.destructiveHint === true) {
    return 'The server marks this tool as destructive: it asks every time, whatever was allowed before.';
  }
  if (tainted && !isTrustedReadOnly(tool)) {
    return 'Text from an untrusted server is in this conversation, so tools that are not read-only ask every time.';
  }
  return null;
}
