// The words and bodies of share links: the Share dialog, the "Shared links" page, the shared
// page and the note at the top of a forked conversation. No React here: share-view.test.ts
// covers it.

import { SHARE_AUDIENCES, SHARE_EXPIRIES, type ShareAudience, type ShareExpiry } from '@/db/vocabulary';
import type { MessageView } from '@/lib/chat/views';
import type { ForkOrigin, SharedConversationView, ShareLinkView } from '@/lib/share/views';

export type { ShareAudience, ShareExpiry } from '@/db/vocabulary';
export type {
  CreatedShare,
  ForkOrigin,
  ShareLinkView,
  SharedConversationView,
  SharedMessagesPage,
  SharedMessageView,
  SharedToolCallView,
} from '@/lib/share/views';

/** The body of `POST /api/conversations/:id/shares`, always with all three options said out loud. */
export interface ShareOptions {
  includeToolDetails: boolean;
  /** The files attached to messages: hidden unless the owner includes them (then read through the link). */
  includeFiles: boolean;
  audience: ShareAudience;
  expiresIn: ShareExpiry;
}

/** What a new link starts with: the least revealing choice for tool details, the simplest for the rest. */
export const DEFAULT_SHARE_OPTIONS: ShareOptions = {
  includeToolDetails: false,
  includeFiles: false,
  audience: 'anyone',
  expiresIn: 'never',
};

// Keyed by the vocabulary: a new audience or expiry does not compile until it has its words.
export const AUDIENCE: Record<ShareAudience, { label: string; hint: string }> = {
  anyone: { label: 'Anyone with the link', hint: 'No account needed to read it.' },
  signed_in: { label: 'Signed-in users only', hint: 'Readers sign in to Switchboard first.' },
};

export const EXPIRY: Record<ShareExpiry, string> = { never: 'Never', '1d': '1 day', '7d': '7 days', '30d': '30 days' };

export const AUDIENCE_CHOICES = SHARE_AUDIENCES.map((value) => ({ value, ...AUDIENCE[value] }));
export const EXPIRY_CHOICES = SHARE_EXPIRIES.map((value) => ({ value, label: EXPIRY[value] }));

export function isAudience(value: string): value is ShareAudience {
  return (SHARE_AUDIENCES as readonly string[]).includes(value);
}

export function isExpiry(value: string): value is ShareExpiry {
  return (SHARE_EXPIRIES as readonly string[]).includes(value);
}

/** What a reader will see of each tool call, said next to the switch either way. */
export function toolDetailsSentence(include: boolean): string {
  return include
    ? 'Readers see each tool call’s arguments and result, as you do here.'
    : 'Readers see which server and tool ran and how it ended, but not the arguments or the result.';
}

/** The same choice, said to the reader of the shared page. */
export function readerToolDetailsSentence(included: boolean): string {
  return included
    ? 'Tool calls show their arguments and results.'
    : 'Tool calls show the server, the tool and how each ended; the owner kept the arguments and results back.';
}

/** What a reader will see of the files attached to messages, said next to the switch either way. */
export function filesSentence(include: boolean): string {
  return include
    ? 'Readers see the images and documents you attached, and can open them through the link.'
    : 'Readers see how many files a message had, but not their names or contents.';
}

/** A message's files the owner kept back, said where they were. */
export function hiddenFilesSentence(count: number): string {
  return count === 1 ? '1 attached file is not shared.' : `${count} attached files are not shared.`;
}

export function createShareBody(options: ShareOptions): ShareOptions {
  return {
    includeToolDetails: options.includeToolDetails,
    includeFiles: options.includeFiles,
    audience: options.audience,
    expiresIn: options.expiresIn,
  };
}

export const URL_SHOWN_ONCE = 'Copy it now: this link is not shown again. You can revoke it at any time.';

/**
 * Why Share is not available yet, or null when it is. A link shows the conversation up to its last
 * finished turn: a turn still running or waiting for the person has not finished. (The server has
 * the last word and answers 409 with its own reason.)
 */
export function shareUnavailableReason(messages: Pick<MessageView, 'role' | 'runId'>[], activeRunId: string | undefined): string | null {
  const finished = messages.some((m) => m.role === 'assistant' && (activeRunId === undefined || m.runId !== activeRunId));
  return finished ? null : 'Nothing to share yet: a link shows the conversation up to its last finished answer.';
}

/** A date and time in the reader's locale; `timeZone` pins it (the server's render, tests). */
export function formatWhen(iso: string, opts: { timeZone?: string; locale?: string } = {}): string {
  return new Date(iso).toLocaleString(opts.locale, { dateStyle: 'medium', timeStyle: 'short', timeZone: opts.timeZone });
}

type Format = (iso: string) => string;

/** A link's options in one line: "Anyone with the link · tool details hidden · never expires". */
export function linkOptionsInWords(link: Pick<ShareLinkView, 'audience' | 'includeToolDetails' | 'expiresAt' | 'expired'>, when: Format) {
  return [
    AUDIENCE[link.audience].label,
    link.includeToolDetails ? 'tool details included' : 'tool details hidden',
    expiryInWords(link, when),
  ].join(' · ');
}

export function expiryInWords(link: Pick<ShareLinkView, 'expiresAt' | 'expired'>, when: Format): string {
  if (link.expiresAt === null) return 'never expires';
  return `${link.expired ? 'expired' : 'expires'} ${when(link.expiresAt)}`;
}

export function snapshotInWords(link: Pick<ShareLinkView, 'snapshotAt' | 'updated'>, when: Format): string {
  return `${link.updated ? 'Updated to the newest message on' : 'Snapshot of'} ${when(link.snapshotAt)}`;
}

/** "2 newer messages not in the link", or null when the link shows everything finished. */
export function newerMessagesInWords(newer: number): string | null {
  if (newer <= 0) return null;
  return `${newer} newer ${newer === 1 ? 'message' : 'messages'} not in the link`;
}

/** Update to newest is offered when there is something to add and the link still opens. */
export function canUpdate(link: Pick<ShareLinkView, 'newerMessages' | 'expired'>): boolean {
  return link.newerMessages > 0 && !link.expired;
}

export const REVOKE_CONFIRM = {
  title: 'Revoke this link?',
  description:
    'Whoever opens it from now on gets “not found”. Your conversation stays as it is, ' +
    'and copies already continued in other accounts stay theirs.',
  confirmLabel: 'Revoke',
};

/** The shared page's line under its title. */
export function sharedSubtitle(view: Pick<SharedConversationView, 'snapshotAt' | 'updatedAt'>, when: Format): string {
  return view.updatedAt
    ? `Shared conversation · updated on ${when(view.updatedAt)}`
    : `Shared conversation · snapshot of ${when(view.snapshotAt)}`;
}

/** Title and description for a link preview; nothing of the conversation but its title. */
export function sharedMetadata(view: Pick<SharedConversationView, 'title'> | null): { title: string; description: string } {
  if (!view) return { title: 'Shared conversation · Switchboard', description: 'A read-only conversation shared from Switchboard.' };
  return {
    title: `${view.title} · Shared conversation · Switchboard`,
    description: `“${view.title}”: a read-only conversation with Claude, shared from Switchboard.`,
  };
}

export const DETAILS_HIDDEN = 'Arguments and result hidden by the owner';

export const SIGN_IN_TO_CONTINUE = 'Sign in to continue this conversation in your own account.';

/** Where a signed-out reader signs in to come back to this link. */
export function signInToReturnHref(token: string): string {
  return `/sign-in?next=${encodeURIComponent(`/share/${token}`)}`;
}

/** The note at the top of a conversation continued from a shared one. */
export function forkNote(origin: ForkOrigin, when: Format): string {
  const note = `Continued from a shared conversation “${origin.title}” (snapshot of ${when(origin.snapshotAt)}).`;
  return origin.toolDetailsHidden ? `${note} Its owner kept the tool calls’ arguments and results back.` : note;
}

/** Everything a row of the owner's list says about one link, in words. */
export function describeLink(link: ShareLinkView, when: Format) {
  return {
    created: `Created ${when(link.createdAt)}`,
    options: linkOptionsInWords(link, when),
    snapshot: `${snapshotInWords(link, when)} · ${link.messageCount} ${link.messageCount === 1 ? 'message' : 'messages'}`,
    newer: newerMessagesInWords(link.newerMessages),
    canUpdate: canUpdate(link),
    expired: link.expired,
  };
}

export const SHARES_EMPTY = {
  title: 'No shared links yet',
  description:
    'To share a conversation, open it and choose Share at the top. You decide whether tool arguments and results go with it, ' +
    'who may open the link and when it expires; the link shows the conversation up to its last finished answer, and you can ' +
    'update or revoke it here at any time.',
};
