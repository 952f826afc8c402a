import { z } from 'zod';

import type { StoredMessageContent } from '@/db/stored-json';

/*
 * A long conversation reaches the page a page at a time: the conversation's view carries the end
 * of the path on screen (the newest turns, what a person reads first), and the page asks for the
 * messages before its first one as the person scrolls back (`GET /api/conversations/:id/messages
 * ?before=`). Without it the page's server-rendered payload carried every message of the path —
 * 300 messages with their tool results for a long conversation — before the first one was drawn.
 * A shared conversation is read from its start instead: its view carries the first turns and the
 * reader's page asks for the ones after as they scroll down (`GET /api/share/:token/messages?after=`).
 */

/** Messages of the first page (the path's end, or a share's start; more when that would cut a turn in two). */
export const FIRST_PAGE_MESSAGES = 60;
/** Messages per further page, unless the request asks for fewer or more. */
export const PAGE_MESSAGES = 100;
/** The most a further page may ask for. */
export const MAX_PAGE_MESSAGES = 200;

type PathMessage = { role: 'user' | 'assistant'; content: StoredMessageContent };

/** A message of the person's that opens a turn (not one carrying only tool results back to the model). */
export function startsTurn(m: PathMessage): boolean {
  return m.role === 'user' && !(Array.isArray(m.content) && m.content.length > 0 && m.content.every((b) => b.type === 'tool_result'));
}

/**
 * Where a page of about `limit` messages ending with the path's last one starts: at the start of
 * the turn its first message belongs to, so a page never begins inside a turn (an answer without
 * its question, a tool result without its call: the turn's timeline, its tokens and the branch
 * controls are read from whole turns). A turn longer than `limit` is sent whole.
 */
export function pageStart(path: readonly PathMessage[], limit: number): number {
  let start = Math.max(0, path.length - limit);
  while (start > 0 && !startsTurn(path[start]!)) start--;
  return start;
}

/**
 * Where a page of about `limit` messages starting at `from` ends (exclusive): after the last message
 * of the turn its last message belongs to, so a page never ends inside a turn. A share's pages.
 */
export function pageEnd(path: readonly PathMessage[], from: number, limit: number): number {
  let end = Math.min(path.length, from + limit);
  while (end < path.length && !startsTurn(path[end]!)) end++;
  return end;
}

/** The `limit` of a further page's query, for readQuery (PAGE_MESSAGES when absent): a whole number from 1 to MAX_PAGE_MESSAGES. */
export const pageLimitParam = z
  .string()
  .default(String(PAGE_MESSAGES))
  .refine((raw) => /^\d{1,4}$/.test(raw) && Number(raw) >= 1 && Number(raw) <= MAX_PAGE_MESSAGES, {
    error: (issue) => `must be a whole number from 1 to ${MAX_PAGE_MESSAGES} (got "${String(issue.input)}").`,
  })
  .transform(Number);
