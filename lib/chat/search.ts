import { searchConversations } from '@/db/queries/conversations';

import type { ChatRuntime } from './runtime';
import { toSummary, type ConversationSummary } from './views';

export const MAX_QUERY_CHARS = 200;
const CONTEXT_CHARS = 50;

export interface SearchResult extends ConversationSummary {
  /** Where the words were found in a message, cut to a few words around them; null for a title match. */
  snippet: string | null;
}

/** A short excerpt of `text` around the first place `query` occurs (case-insensitive). */
export function snippetAround(text: string, query: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const at = flat.toLowerCase().indexOf(query.toLowerCase());
  if (at < 0) return flat.length > 2 * CONTEXT_CHARS ? `${flat.slice(0, 2 * CONTEXT_CHARS)}…` : flat;
  const start = Math.max(0, at - CONTEXT_CHARS);
  const end = Math.min(flat.length, at + query.length + CONTEXT_CHARS);
  return `${start > 0 ? '…' : ''}${flat.slice(start, end)}${end < flat.length ? '…' : ''}`;
}

/** The person's conversations whose title or messages contain the words, newest first. */
export async function searchForUser(rt: ChatRuntime, userId: string, query: string): Promise<SearchResult[]> {
  const q = query.trim();
  const matches = await searchConversations(rt.handle.db, userId, q);
  return matches.map((m) => ({ ...toSummary(m.conversation), snippet: m.matchedText ? snippetAround(m.matchedText, q) : null }));
}
