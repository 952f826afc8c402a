'use client';

import { api, ApiError } from '../api';
import type { ConversationView, MessageView } from '../types';
import { siblingAt, type BranchActions } from './branching';

/**
 * The requests behind the branch controls. Each one changes which branch the conversation
 * shows; the page then reads the conversation again (the active path and every message's
 * versions, as a reload would show them) and follows the turn it started, if any.
 */
export function branchRequests(opts: {
  conversationId: string;
  /** The active path as the page shows it. */
  messages: MessageView[];
  /** Waits for model and thinking settings being saved, so a new turn goes out under them. */
  settled: () => Promise<void>;
  /** Shows the conversation as read again, and follows its active turn. */
  show: (view: ConversationView) => void;
}): BranchActions {
  const base = `/api/conversations/${opts.conversationId}`;
  /** `request` may answer with the new view itself (a switch does); else it is read. */
  const attempt = async (request: () => Promise<ConversationView | void>, failure: string): Promise<string | null> => {
    let view: ConversationView | void;
    try {
      view = await request();
    } catch (err) {
      return err instanceof ApiError ? err.message : failure;
    }
    try {
      opts.show(view ?? (await api<ConversationView>(base)));
      return null;
    } catch {
      return 'Done, but the conversation could not be read again. Reload the page to see it.';
    }
  };
  // The server shows the newest branch beneath the message (its latest answer, and on), and answers with it.
  const showNewestBeneath = (leafId: string, failure: string) =>
    attempt(
      async () => (await api<{ conversation: ConversationView }>(`${base}/active`, { method: 'PUT', body: { leafId } })).conversation,
      failure,
    );
  return {
    edit: async (messageId, text) => {
      // The edited message's parent: the new one follows it (null: a new first message). On the
      // active path that is the message shown before it, should the view not carry its parent.
      const at = opts.messages.findIndex((m) => m.id === messageId);
      const edited = opts.messages[at];
      if (!edited) return 'This message is no longer shown. Reload the page and edit it again.';
      const parentId = edited.parentId !== undefined ? edited.parentId : (opts.messages[at - 1]?.id ?? null);
      // The files it carried go with the edited text: an edit changes the words, not what was attached.
      const attachments = (edited.files ?? []).map((f) => ({ fileId: f.id }));
      return attempt(async () => {
        await opts.settled();
        await api(`${base}/messages`, { method: 'POST', body: { text, parentId, ...(attachments.length && { attachments }) } });
        return undefined;
      }, 'Could not send the edited message.');
    },
    regenerate: (messageId) =>
      attempt(async () => {
        await opts.settled();
        await api(`${base}/regenerate`, { method: 'POST', body: { messageId } });
        return undefined;
      }, 'Could not ask for another answer.'),
    step: (messageId, direction) => {
      const message = opts.messages.find((m) => m.id === messageId);
      const sibling = message && siblingAt(message, direction);
      if (!sibling) return Promise.resolve('There is no other version that way.');
      return showNewestBeneath(sibling, 'Could not show that version.');
    },
    showBeneath: (messageId) => showNewestBeneath(messageId, 'Could not show the earlier answer.'),
  };
}
