import type { ShareAudience } from '@/db/vocabulary';
import type { ToolCallView } from '@/lib/agent/tool-call-view';
import type { MessageView } from '@/lib/chat/views';

/**
 * What the browser sees of share links. The owner's views never carry the token (it is shown
 * once, in the answer to the create request, and stored only as a hash); the shared views carry
 * nothing of the owner (no email, no server URL, no ids of grants or servers) and, unless the
 * owner chose to include them, no tool arguments or results.
 */

/** One of the owner's links (the conversation's list and the "Shared links" page). */
export interface ShareLinkView {
  id: string;
  conversationId: string;
  conversationTitle: string;
  includeToolDetails: boolean;
  /** Whether the shared page shows the files attached to messages. */
  includeFiles: boolean;
  audience: ShareAudience;
  createdAt: string;
  /** null: never expires. */
  expiresAt: string | null;
  /** True once expiresAt has passed: the link answers 404; the owner still sees it to delete it. */
  expired: boolean;
  /** When the snapshot was taken (at creation, or when the owner last moved it to the newest message). */
  snapshotAt: string;
  /** Whether the owner moved the snapshot after creating the link (the shared page then says "updated on …"). */
  updated: boolean;
  /** Messages in the snapshot. */
  messageCount: number;
  /** Messages in the conversation after the snapshot (0: the link shows everything finished). */
  newerMessages: number;
}

/** The answer to `POST /api/conversations/:id/shares`: the URL is shown this once. */
export interface CreatedShare {
  id: string;
  url: string;
  link: ShareLinkView;
}

/**
 * A tool call as a shared page shows it: the card's fields with everything of the owner's
 * account stripped. With tool details hidden, `input` is `{}`, `result` is null and
 * `detailsHidden` is true, so the card shows server, tool and outcome only.
 */
export type SharedToolCallView = Omit<ToolCallView, 'argsHash' | 'inputRequests' | 'signIn' | 'allowForSession'> & {
  detailsHidden: boolean;
};

/**
 * A message as a shared page shows it: text blocks and `tool_use` blocks (`id` and `name`, input
 * always `{}` — the card carries the arguments when they are shown); no `tool_result` blocks, no
 * file references (the files are in `files` when the owner included them).
 */
export type SharedMessageView = Omit<MessageView, 'runId'> & {
  runId: string | null;
  /** How many files the message carried when the owner did not include them (nothing else of them is sent). */
  filesHidden?: number;
};

/**
 * A page of a shared conversation, from its start (lib/chat/path-page.ts): whole turns, with their
 * tool calls, how many messages come after, and the message to ask for the next page after.
 */
export interface SharedMessagesPage {
  messages: SharedMessageView[];
  toolCalls: SharedToolCallView[];
  /** Messages shown after this page (0 at the end). */
  later: number;
  /** `?after=` of the next page (the last message of this one, which may show nothing); null at the end. */
  next: string | null;
}

/** `GET /api/share/:token` and the `/share/<token>` page: exactly the same redactions, the first page of messages. */
export interface SharedConversationView extends SharedMessagesPage {
  title: string;
  snapshotAt: string;
  /** Set when the owner moved the snapshot after creating the link (same instant as snapshotAt). */
  updatedAt: string | null;
  includeToolDetails: boolean;
  /**
   * Whether messages list their files (`files`, served at `/api/share/:token/files/:id`); else a
   * message says only how many it had (`filesHidden`).
   */
  includeFiles: boolean;
  audience: ShareAudience;
}

/** Where a forked conversation came from: part of the conversation's own view (lib/chat), re-exported for the share pages. */
export type { ForkOrigin } from '@/lib/chat/views';
