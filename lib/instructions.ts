/**
 * The person's instructions to the model: their own (every conversation, on the account page) and
 * each conversation's (its header). Both are sent as system text of every model step. The limits
 * keep the cached prefix of a request small; they are counted in characters as a person counts
 * them (an emoji is one), the same way on the page and on the server.
 */
export const INSTRUCTIONS_LIMITS = {
  /** `PUT /api/account/instructions { text }`. */
  personal: 4_000,
  /** `PATCH /api/conversations/:id { instructions }`. */
  conversation: 4_000,
} as const;

export type InstructionsKind = keyof typeof INSTRUCTIONS_LIMITS;

/** Characters as a person counts them (code points, not UTF-16 units). */
export function characterCount(text: string): number {
  return [...text].length;
}

/**
 * The text as stored: surrounding whitespace trimmed, and null for nothing (empty text clears the
 * instructions), or the problem with it in words (the caller names the field).
 */
export function checkedInstructions(text: string, kind: InstructionsKind): { text: string | null } | { problem: string } {
  const trimmed = text.trim();
  const limit = INSTRUCTIONS_LIMITS[kind];
  const count = characterCount(trimmed);
  if (count > limit) {
    return { problem: `must be at most ${limit.toLocaleString('en')} characters (this is ${count.toLocaleString('en')})` };
  }
  // Postgres text cannot hold NUL; a person never means one.
  if (trimmed.includes('\u0000')) return { problem: 'must not contain NUL characters' };
  return { text: trimmed || null };
}
