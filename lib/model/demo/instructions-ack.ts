import { instructionsIn } from '../instructions';

const MAX_QUOTE = 80;

/**
 * The sentence that opens a plain answer when the system text carries the person's instructions
 * (lib/model/instructions.ts): which kinds it received, each quoted by its first line, so a test
 * or a person trying the app offline can see that they reached the model. Null without any.
 */
export function instructionsAck(system: string | undefined): string | null {
  const found = instructionsIn(system ?? '');
  const parts = [
    found.personal !== undefined && `for every conversation, starting “${firstLine(found.personal)}”`,
    found.conversation !== undefined && `for this conversation, starting “${firstLine(found.conversation)}”`,
  ].filter((p): p is string => Boolean(p));
  return parts.length ? `I received your instructions ${parts.join(', and ')}.` : null;
}

function firstLine(text: string): string {
  const line =
    text
      .split('\n')
      .find((l) => l.trim())
      ?.trim() ?? '';
  return line.length > MAX_QUOTE ? `${line.slice(0, MAX_QUOTE).trimEnd()}…` : line;
}
