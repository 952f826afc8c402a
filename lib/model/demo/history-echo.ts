import type { RequestMessage } from './types';

/** `[demo:history]` in the last user text: the answer opens by saying which history it received. */
export const HISTORY_TRIGGER = '[demo:history]';

const MAX_QUOTE = 40;

/**
 * The sentence that opens a plain answer when the person asks for it with HISTORY_TRIGGER: each of
 * their messages the request carried, quoted by its first words, and how many answers of the model
 * came with them — so a test (or a person trying branches offline) sees exactly which path of a
 * conversation reached the model. Null without the trigger.
 */
export function historyEcho(messages: RequestMessage[]): string | null {
  const texts = messages.flatMap((m) => (m.role === 'user' ? [userText(m)] : [])).filter((t) => t !== '');
  if (!texts.at(-1)?.includes(HISTORY_TRIGGER)) return null;
  const answers = messages.filter((m) => m.role === 'assistant').length;
  const quoted = texts.map((t) => `“${quote(t)}”`).join(', ');
  const mine = `${answers} ${answers === 1 ? 'answer' : 'answers'} of mine`;
  return `I received ${texts.length} ${texts.length === 1 ? 'message' : 'messages'} from you: ${quoted}; and ${mine}.`;
}

/** The text a person typed (a message carrying only tool results has none). */
function userText(m: RequestMessage): string {
  if (typeof m.content === 'string') return m.content;
  return m.content
    .filter((b) => b?.type === 'text' && typeof b.text === 'string')
    .map((b) => b.text as string)
    .join('\n');
}

function quote(text: string): string {
  const line = text.replace(HISTORY_TRIGGER, '').replace(/\s+/g, ' ').trim();
  if (line.length <= MAX_QUOTE) return line;
  // Whole words only, so a quote is easy to find again.
  const cut = line.slice(0, MAX_QUOTE + 1);
  return `${cut.slice(0, cut.lastIndexOf(' ') > 0 ? cut.lastIndexOf(' ') : MAX_QUOTE).trimEnd()}…`;
}
