/**
 * Conversation titles from the model. The host asks for one with this system prompt; the offline
 * demo model recognises it by its first words (and answers with a few words of the message).
 */
export const TITLE_REQUEST = 'Write a title for a conversation';

export const TITLE_SYSTEM_PROMPT =
  `${TITLE_REQUEST} that starts with the user's message below. Answer with the title only: at most six words, ` +
  'no quotes, no final period, in the language of the message.';

const MAX_TITLE = 60;

/** The model's answer as a one-line title, or null when it gave nothing usable. */
export function cleanTitle(raw: string): string | null {
  const line = raw
    .split('\n')
    .map((l) => l.trim())
    .find(Boolean);
  if (!line) return null;
  const title = line
    .replace(/^(title|titre|titel)\s*:\s*/i, '')
    .replace(/^["'“”«»*#\s]+|["'“”«»*.\s]+$/g, '')
    .replace(/\s+/g, ' ');
  if (!title) return null;
  return title.length > MAX_TITLE ? `${title.slice(0, MAX_TITLE - 1).trimEnd()}…` : title;
}
