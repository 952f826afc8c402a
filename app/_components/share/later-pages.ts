import type { SharedMessagesPage } from './share-view';

/**
 * A shared conversation is read from its start (lib/chat/path-page.ts): the page holds its first
 * turns and the pages after them the reader scrolled to. A page goes after the last one only when it
 * is the one asked for after it (`next`): an answer that comes late, or twice, changes nothing.
 */
export function withLaterPage(shown: SharedMessagesPage, after: string, page: SharedMessagesPage): SharedMessagesPage {
  if (shown.next !== after) return shown;
  return {
    messages: [...shown.messages, ...page.messages],
    toolCalls: [...shown.toolCalls, ...page.toolCalls],
    later: page.later,
    next: page.next,
  };
}
