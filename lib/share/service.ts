import { randomUUID } from 'node:crypto';

import type { Db } from '@/db/connection';
import { fileRefIds } from '@/db/file-refs';
import { listFilesByIds } from '@/db/queries/files';
import type { MessageRow } from '@/db/queries/messages';
import { listPoliciesOfUser } from '@/db/queries/orgs';
import {
  currentSnapshotPoint,
  deleteShareLink,
  getShareLinkByTokenHash,
  getShareLinkForUser,
  insertForkedConversation,
  insertShareLink,
  listShareLinks,
  moveShareSnapshot,
  readSnapshot,
  readSnapshotPath,
  type ShareLinkListing,
  type ShareLinkRow,
} from '@/db/queries/shares';
import { getConversationTaint } from '@/db/queries/taint';
import { listToolCallsAskedOn } from '@/db/queries/tool-calls';
import type { StoredMessageContent } from '@/db/stored-json';
import type { ShareAudience, ShareExpiry } from '@/db/vocabulary';
import { FIRST_PAGE_MESSAGES, pageEnd } from '@/lib/chat/path-page';
import { shareRefusal } from '@/lib/consent/org-policy';
import { copyFiles, fileDeps, readSharedFile } from '@/lib/files/service';
import { toFileView, type FileView } from '@/lib/files/view';
import { AppError } from '@/lib/http/errors';

import { isExpired, shareExpiresAt } from './expiry';
import { admitShareLookup, countFailedShareLookup } from './lookup-limits';
import { forkMessageContent, forkRuns, forkToolCall, isShown, toSharedMessage, toSharedToolCall } from './redact';
import { hashShareToken, isWellFormedShareToken, newShareToken, shareUrl } from './tokens';
import type { CreatedShare, SharedConversationView, SharedMessagesPage, ShareLinkView } from './views';

/** What the share use-cases need of the app's runtime (a test passes just these). */
export interface ShareRuntime {
  handle: { db: Db };
  modelConfig: { model: string };
}

export interface ShareOptions {
  includeToolDetails: boolean;
  /** Show the files attached to messages (hidden by default, like tool details). */
  includeFiles?: boolean;
  audience: ShareAudience;
  expiresIn: ShareExpiry;
}

/** Who opens a link: the signed-in person (null when signed out) and the address our proxies vouch for (lib/http/origin.ts clientKey). */
export interface ShareVisitor {
  userId: string | null;
  address: string | null;
}

const NOT_FOUND = 'This shared conversation does not exist: the link is wrong, was revoked by its owner, or has expired.';

function toLinkView(l: ShareLinkListing, now: Date): ShareLinkView {
  const { link } = l;
  return {
    id: link.id,
    conversationId: link.conversationId,
    conversationTitle: l.conversationTitle,
    includeToolDetails: link.includeToolDetails,
    includeFiles: link.includeFiles,
    audience: link.audience,
    createdAt: link.createdAt.toISOString(),
    expiresAt: link.expiresAt?.toISOString() ?? null,
    expired: isExpired(link.expiresAt, now),
    snapshotAt: link.snapshotAt.toISOString(),
    updated: link.snapshotMovedAt !== null,
    messageCount: l.messageCount,
    newerMessages: l.newerMessages,
  };
}

/** The snapshot ends at the last finished turn; a conversation with none has nothing to share yet. */
async function snapshotPointOf(db: Db, userId: string, conversationId: string) {
  const point = await currentSnapshotPoint(db, userId, conversationId);
  if (!point) throw new AppError('not_found', 'conversation', `No conversation with id "${conversationId}".`);
  if (point.seq === 0) {
    throw new AppError(
      'conflict',
      'share',
      'Nothing to share yet: a link shows finished turns only. Share it once the first answer is complete.',
    );
  }
  return point;
}

async function linkViewOf(db: Db, userId: string, link: ShareLinkRow, now = new Date()): Promise<ShareLinkView> {
  const listing = (await listShareLinks(db, userId, link.conversationId)).find((l) => l.link.id === link.id);
  if (!listing) throw new AppError('not_found', 'share', `No share link with id "${link.id}".`);
  return toLinkView(listing, now);
}

/**
 * The person's organizations may allow only links for signed-in people, or none with tool
 * details: making a link, or publishing newer turns on one, is refused with the policy's reason.
 */
async function requireSharePolicy(db: Db, userId: string, link: { audience: ShareAudience; includeToolDetails: boolean }) {
  const refused = shareRefusal(await listPoliciesOfUser(db, userId), link);
  if (refused) {
    const field = refused.rule === 'share_anyone' ? 'audience' : 'includeToolDetails';
    throw new AppError('forbidden', 'org_policy', `${field}: ${refused.why}`, field);
  }
}

export async function createShare(
  rt: ShareRuntime,
  userId: string,
  conversationId: string,
  options: ShareOptions,
  origin: string,
): Promise<CreatedShare> {
  const db = rt.handle.db;
  const point = await snapshotPointOf(db, userId, conversationId);
  await requireSharePolicy(db, userId, options);
  const { token, hash } = newShareToken();
  const now = new Date();
  const link = await insertShareLink(db, {
    userId,
    conversationId,
    tokenHash: hash,
    includeToolDetails: options.includeToolDetails,
    includeFiles: options.includeFiles ?? false,
    audience: options.audience,
    expiresAt: shareExpiresAt(options.expiresIn, now),
    snapshotSeq: point.seq,
    snapshotTitle: point.title,
    snapshotAt: now,
  });
  return { id: link.id, url: shareUrl(origin, token), link: await linkViewOf(db, userId, link, now) };
}

export async function listConversationShares(rt: ShareRuntime, userId: string, conversationId: string): Promise<ShareLinkView[]> {
  const db = rt.handle.db;
  if (!(await currentSnapshotPoint(db, userId, conversationId))) {
    throw new AppError('not_found', 'conversation', `No conversation with id "${conversationId}".`);
  }
  const now = new Date();
  return (await listShareLinks(db, userId, conversationId)).map((l) => toLinkView(l, now));
}

export async function listUserShares(rt: ShareRuntime, userId: string): Promise<ShareLinkView[]> {
  const now = new Date();
  return (await listShareLinks(rt.handle.db, userId)).map((l) => toLinkView(l, now));
}

/** Moves a link's snapshot to the conversation's last finished turn; the shared page then says "updated on …". */
export async function updateShareSnapshot(rt: ShareRuntime, userId: string, shareId: string): Promise<ShareLinkView> {
  const db = rt.handle.db;
  const link = await getShareLinkForUser(db, userId, shareId);
  if (!link) throw new AppError('not_found', 'share', `No share link with id "${shareId}".`);
  // A link made before the policy forbade links like it publishes nothing newer.
  await requireSharePolicy(db, userId, link);
  const point = await snapshotPointOf(db, userId, link.conversationId);
  const moved = await moveShareSnapshot(db, userId, shareId, point, new Date());
  if (!moved) throw new AppError('not_found', 'share', `No share link with id "${shareId}".`);
  return linkViewOf(db, userId, moved);
}

/** Revoking deletes the link: its token opens nothing from this moment on. */
export async function revokeShare(rt: ShareRuntime, userId: string, shareId: string): Promise<void> {
  if (!(await deleteShareLink(rt.handle.db, userId, shareId))) {
    throw new AppError('not_found', 'share', `No share link with id "${shareId}".`);
  }
}

/**
 * The link a token opens, within the limit of failed lookups: unknown, revoked and expired links are the same
 * 404 (nothing says which); a signed-in-only link asks a signed-out visitor to sign in; a link its owner's
 * organization now forbids (public, or with tool details) is a 403 saying so.
 */
async function resolveShare(rt: ShareRuntime, token: string, visitor: ShareVisitor): Promise<ShareLinkRow> {
  const db = rt.handle.db;
  // A malformed token cannot be one of ours: refused before anything is counted or looked up.
  if (!isWellFormedShareToken(token)) throw new AppError('not_found', 'share', NOT_FOUND);
  await admitShareLookup(db, visitor);
  const link = await getShareLinkByTokenHash(db, hashShareToken(token));
  if (!link || isExpired(link.expiresAt, new Date())) {
    await countFailedShareLookup(db, visitor);
    throw new AppError('not_found', 'share', NOT_FOUND);
  }
  if (link.audience === 'signed_in' && !visitor.userId) {
    throw new AppError('unauthorized', 'share', 'Sign in to read this conversation: its owner shares it with signed-in people only.');
  }
  // A link made before its owner's organization forbade links like it opens nothing (told in
  // words for the visitor, who is not the one the policy's "Your organization …" speaks to).
  const refused = shareRefusal(await listPoliciesOfUser(db, link.userId), link);
  if (refused) {
    const kind = refused.rule === 'share_anyone' ? 'public links' : 'links with tool details';
    throw new AppError(
      'forbidden',
      'share',
      `This shared conversation is not available: its owner's organization no longer allows ${kind}.`,
    );
  }
  return link;
}

/**
 * `GET /api/share/:token` and the `/share/<token>` page: the snapshot with the link's redactions —
 * its first turns; the reader's page asks for the rest as they scroll (`openSharedMessages`).
 */
export async function openShare(
  rt: ShareRuntime,
  token: string,
  viewer: { userId: string } | null,
  clientKey: string | null,
): Promise<SharedConversationView> {
  const link = await resolveShare(rt, token, { userId: viewer?.userId ?? null, address: clientKey });
  const path = await readSnapshotPath(rt.handle.db, link.conversationId, link.snapshotSeq);
  return {
    title: link.snapshotTitle,
    snapshotAt: link.snapshotAt.toISOString(),
    updatedAt: link.snapshotMovedAt?.toISOString() ?? null,
    includeToolDetails: link.includeToolDetails,
    includeFiles: link.includeFiles,
    audience: link.audience,
    ...(await sharedPage(rt.handle.db, link, path, 0, FIRST_PAGE_MESSAGES)),
  };
}

/**
 * `GET /api/share/:token/messages?after=<id>[&limit=]`: the page of the snapshot after one of its
 * messages (the reader's page passes the `next` it was given). A message outside the snapshot —
 * another conversation's, or one written after it was taken — is not found.
 */
export async function openSharedMessages(
  rt: ShareRuntime,
  token: string,
  viewer: { userId: string } | null,
  clientKey: string | null,
  page: { after: string; limit: number },
): Promise<SharedMessagesPage> {
  const link = await resolveShare(rt, token, { userId: viewer?.userId ?? null, address: clientKey });
  const path = await readSnapshotPath(rt.handle.db, link.conversationId, link.snapshotSeq);
  const at = path.findIndex((m) => m.id === page.after);
  if (at < 0) throw new AppError('not_found', 'message', `No message with id "${page.after}" in this shared conversation.`);
  return sharedPage(rt.handle.db, link, path, at + 1, page.limit);
}

/**
 * The page of about `limit` messages of the snapshot's path from `from` (whole turns), redacted as
 * the link says. The whole path is read (where the page starts and what comes after it are counted
 * on it); tool calls and files only for the page's messages.
 */
async function sharedPage(db: Db, link: ShareLinkRow, path: MessageRow[], from: number, limit: number): Promise<SharedMessagesPage> {
  const end = pageEnd(path, from, limit);
  const page = path.slice(from, end);
  const [files, calls] = await Promise.all([
    link.includeFiles ? snapshotFiles(db, link.userId, page) : null,
    listToolCallsAskedOn(db, link.conversationId, page),
  ]);
  return {
    messages: page.flatMap((m) => toSharedMessage(m, files) ?? []),
    toolCalls: calls.map((c) => toSharedToolCall(c, link.includeToolDetails)),
    later: path.slice(end).filter(isShown).length,
    next: end < path.length ? path[end - 1]!.id : null,
  };
}

/** The owner's files the snapshot's messages refer to, as the shared page lists them. */
async function snapshotFiles(db: Db, ownerId: string, messages: { content: StoredMessageContent }[]): Promise<Map<string, FileView>> {
  const ids = [...new Set(messages.flatMap((m) => fileRefIds(m.content)))];
  return new Map((await listFilesByIds(db, ownerId, ids)).map((f) => [f.id, toFileView(f)]));
}

/**
 * `GET /api/share/:token/files/:fileId`: a file the share shows — the link includes files and a
 * message of its snapshot refers to it. Anything else is the same 404 as an unknown file.
 */
export async function openSharedFile(
  rt: ShareRuntime,
  token: string,
  fileId: string,
  viewer: { userId: string } | null,
  clientKey: string | null,
) {
  const link = await resolveShare(rt, token, { userId: viewer?.userId ?? null, address: clientKey });
  if (!link.includeFiles) throw new AppError('not_found', 'file', `No file with id "${fileId}".`);
  return readSharedFile(fileDeps(rt.handle.db), link, fileId);
}

/**
 * Continues a shared conversation in the visitor's own account: a new conversation holding
 * exactly what the link shows (hidden tool details become results that say so), with the
 * visitor's own default grants (none are copied), nothing re-run, and a note of where it came
 * from. If text from an untrusted server had entered the original by the snapshot, the copy is
 * tainted too: that text (or what the model wrote after reading it) is in its history.
 */
export async function forkShare(
  rt: ShareRuntime,
  token: string,
  visitor: ShareVisitor & { userId: string },
): Promise<{ conversationId: string }> {
  const db = rt.handle.db;
  const link = await resolveShare(rt, token, visitor);
  const [snapshot, taint] = await Promise.all([
    readSnapshot(db, link.conversationId, link.snapshotSeq),
    getConversationTaint(db, link.conversationId),
  ]);
  const details = link.includeToolDetails;
  // Files the link shows are copied into the visitor's account first (a failed fork leaves them as
  // unsent drafts, which the sweep removes); files it hides are not copied at all.
  const copiedFiles = link.includeFiles
    ? await copyFiles(fileDeps(db), link.userId, visitor.userId, [...new Set(snapshot.messages.flatMap((m) => fileRefIds(m.content)))])
    : null;
  const { runs, idOf } = forkRuns(snapshot.runs, randomUUID);
  const conversationId = await db.transaction((tx) =>
    insertForkedConversation(tx, {
      userId: visitor.userId,
      model: rt.modelConfig.model,
      title: link.snapshotTitle,
      forkedFrom: { v: 1, title: link.snapshotTitle, snapshotAt: link.snapshotAt.toISOString(), toolDetailsHidden: !details },
      tainted: taint && Date.parse(taint.at) <= link.snapshotAt.getTime() ? taint : null,
      runs,
      messages: snapshot.messages.flatMap((m) => {
        // A fork carries no origin: what views told the model would read as the reader's own words.
        const content = m.origin?.kind === 'view_context' ? [] : forkMessageContent(m.content, details, copiedFiles);
        if (content.length === 0) return [];
        return [
          {
            seq: m.seq,
            role: m.role,
            content,
            runId: m.runId ? (idOf.get(m.runId) ?? null) : null,
            stopReason: m.stopReason,
            createdAt: m.createdAt,
          },
        ];
      }),
      toolCalls: snapshot.toolCalls.flatMap((c) => {
        const runId = idOf.get(c.runId);
        return runId ? [forkToolCall(c, runId, details)] : [];
      }),
    }),
  );
  return { conversationId };
}
