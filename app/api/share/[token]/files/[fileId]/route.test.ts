import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { fileRefBlock } from '@/db/file-refs';
import { createConversation } from '@/db/queries/conversations';
import { appendMessage } from '@/db/queries/messages';
import { createUser } from '@/db/queries/users';
import type { ConversationView } from '@/lib/chat/views';
import { fileDeps, uploadFile } from '@/lib/files/service';
import type { FileView } from '@/lib/files/view';
import { HIDDEN_FILES_TEXT } from '@/lib/share/redact';
import type { CreatedShare, SharedConversationView } from '@/lib/share/views';
import { openRouteRuntime } from '@/test/route-runtime';
import { sessionCookie } from '@/test/route-session';
import { png, text } from '@/test/sample-files';

/**
 * Files in a share: hidden by default (nothing of them in the JSON but a count), shown with
 * `includeFiles` and served through the token — only files of the snapshot, never the owner's
 * URL — and a fork copies exactly what the link showed into the reader's own account.
 */
const ORIGIN = 'http://localhost';

describe('files in shares', () => {
  let h: DbHandle;
  let routes: {
    shares: typeof import('../../../../conversations/[id]/shares/route');
    read: typeof import('../../route');
    fork: typeof import('../../fork/route');
    file: typeof import('./route');
    conversation: typeof import('../../../../conversations/[id]/route');
    ownFile: typeof import('../../../../files/[id]/route');
  };
  beforeAll(async () => {
    h = await openRouteRuntime('share-files');
    routes = {
      shares: await import('../../../../conversations/[id]/shares/route'),
      read: await import('../../route'),
      fork: await import('../../fork/route'),
      file: await import('./route'),
      conversation: await import('../../../../conversations/[id]/route'),
      ownFile: await import('../../../../files/[id]/route'),
    };
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await h?.close();
  });

  async function signedIn() {
    const user = (await createUser(h.db, { email: `sf-${randomBytes(6).toString('hex')}@example.test` }))!;
    return { userId: user.id, ...(await sessionCookie(h.db, user.id)) };
  }
  const req = (method: string, cookie?: string, body?: unknown) =>
    new Request(`${ORIGIN}/api/x`, {
      method,
      headers: { origin: ORIGIN, ...(cookie && { cookie }), ...(body !== undefined && { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const at = <P extends Record<string, string>>(params: P) => ({ params: Promise.resolve(params) });

  /** A finished exchange whose question carries an image and a text file; and a draft file never sent. */
  async function withFiles(userId: string) {
    const deps = fileDeps(h.db);
    const image = await uploadFile(deps, userId, { name: 'shot.png', bytes: png(3, 2) });
    const notes = await uploadFile(deps, userId, { name: 'notes.md', bytes: text('# Notes') });
    const draft = await uploadFile(deps, userId, { name: 'draft.txt', bytes: text('not sent') });
    const c = await createConversation(h.db, { userId, model: 'demo', title: 'With files' });
    await appendMessage(h.db, {
      conversationId: c.id,
      role: 'user',
      content: [fileRefBlock(image), fileRefBlock(notes), { type: 'text', text: 'What is this?' }],
    });
    await appendMessage(h.db, {
      conversationId: c.id,
      role: 'assistant',
      content: [{ type: 'text', text: 'A picture.' }],
      stopReason: 'end_turn',
    });
    return { conversationId: c.id, image, notes, draft };
  }
  async function share(cookie: string, id: string, body: unknown = {}) {
    const res = await routes.shares.POST(req('POST', cookie, body), at({ id }));
    expect(res.status).toBe(201);
    return ((await res.json()) as CreatedShare).url.split('/share/')[1]!;
  }
  const read = async (token: string) => (await routes.read.GET(req('GET'), at({ token }))).json() as Promise<SharedConversationView>;
  const served = (token: string, fileId: string, cookie?: string) => routes.file.GET(req('GET', cookie), at({ token, fileId }));

  it('hides them by default: no id, name, URL or byte of a file, and the file route is a 404', async () => {
    const owner = await signedIn();
    const { conversationId, image, notes } = await withFiles(owner.userId);
    const token = await share(owner.cookie, conversationId);
    const view = await read(token);
    expect(view.includeFiles).toBe(false);
    expect(view.messages[0]).toMatchObject({ content: [{ type: 'text', text: 'What is this?' }], filesHidden: 2 });
    expect(view.messages[0]!.files).toBeUndefined();
    const json = JSON.stringify(view);
    for (const leak of [image.id, notes.id, 'shot.png', 'notes.md', '/api/files', 'base64', 'file_id']) expect(json).not.toContain(leak);
    const res = await served(token, image.id);
    expect(res.status).toBe(404);
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('with includeFiles, lists them and serves those of the snapshot through the token only', async () => {
    const owner = await signedIn();
    const { conversationId, image, notes, draft } = await withFiles(owner.userId);
    const token = await share(owner.cookie, conversationId, { includeFiles: true });
    const view = await read(token);
    expect(view.includeFiles).toBe(true);
    expect(view.messages[0]!.files).toEqual([image, notes]);
    expect(view.messages[0]!.filesHidden).toBeUndefined();

    const res = await served(token, image.id);
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(Buffer.from(png(3, 2)))).toBe(true);
    expect(Object.fromEntries(res.headers)).toMatchObject({
      'content-type': 'image/png',
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'; sandbox",
      'cache-control': 'no-store',
      'referrer-policy': 'no-referrer',
    });
    expect((await served(token, notes.id)).headers.get('content-disposition')).toMatch(/^attachment; filename="notes.md"/);
    // A file of the owner the snapshot does not show, an unknown id, a bad token: all the same 404.
    expect((await served(token, draft.id)).status).toBe(404);
    expect((await served(token, crypto.randomUUID())).status).toBe(404);
    expect((await served('x'.repeat(43), image.id)).status).toBe(404);
    // The owner's own URL stays the owner's.
    const reader = await signedIn();
    expect((await routes.ownFile.GET(req('GET', reader.cookie), at({ id: image.id }))).status).toBe(404);
  });

  it('a fork copies the files the link showed into the reader’s account, and only those', async () => {
    const owner = await signedIn();
    const reader = await signedIn();
    const { conversationId, image } = await withFiles(owner.userId);
    const conversationOf = async (token: string) => {
      const forked = await routes.fork.POST(req('POST', reader.cookie, {}), at({ token }));
      expect(forked.status, await forked.clone().text()).toBe(201);
      const { conversationId: id } = (await forked.json()) as { conversationId: string };
      return (await (await routes.conversation.GET(req('GET', reader.cookie), at({ id }))).json()) as ConversationView;
    };

    const withCopies = await conversationOf(await share(owner.cookie, conversationId, { includeFiles: true }));
    const copies = withCopies.messages[0]!.files as FileView[];
    expect(copies.map((f) => [f.name, f.kind])).toEqual([
      ['shot.png', 'image'],
      ['notes.md', 'text'],
    ]);
    expect(copies[0]!.id).not.toBe(image.id);
    const copy = await routes.ownFile.GET(req('GET', reader.cookie), at({ id: copies[0]!.id }));
    expect(Buffer.from(await copy.arrayBuffer()).equals(Buffer.from(png(3, 2)))).toBe(true);

    const without = await conversationOf(await share(owner.cookie, conversationId));
    expect(without.messages[0]!.files).toBeUndefined();
    expect(without.messages[0]!.content).toEqual([
      { type: 'text', text: `[${HIDDEN_FILES_TEXT}]` },
      { type: 'text', text: 'What is this?' },
    ]);
  });
});
