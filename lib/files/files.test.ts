import type Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { FILE_DOCUMENT_CONTEXT } from '@/db/file-refs';
import { createConversation } from '@/db/queries/conversations';
import { fileBlobs, files } from '@/db/schema';
import { buildAccountExport } from '@/lib/account/export';
import type { ChatRuntime } from '@/lib/chat/runtime';
import { remove, sendMessage, view } from '@/lib/chat/service';
import { AppError } from '@/lib/http/errors';
import { closeBuiltinHandlers } from '@/lib/mcp/builtin';
import { getModelConfig } from '@/lib/model/client';
import { createModelCatalog } from '@/lib/model/models';
import { sweep } from '@/lib/ops/sweep';
import { createAppToolHost } from '@/lib/server/tool-host';
import { openTestDb, TEST_DATABASES } from '@/test/db';
import { engineDeps, userAndConversation } from '@/test/engine-harness';
import { startScriptedModel } from '@/test/fixtures/scripted-model';
import { pdf, png, text as utf8 } from '@/test/sample-files';
import { text, toolUse } from '@/test/tool-harness';

import { deleteOwnFile, fileDeps, uploadFile } from './service';

/**
 * Files through a whole turn, on each database: what the model gets for each kind (through the
 * scripted model, which records the requests), the bytes read once per drive however many steps
 * it takes, the demo model's words, the views after a reload, the attachment errors, and the
 * lifecycle — deleting a draft's file, a conversation, the sweep of stale drafts, the export.
 */
for (const { kind, available } of TEST_DATABASES) {
  describe.skipIf(!available)(`files in a turn on ${kind}`, () => {
    let h: DbHandle;
    const statements: string[] = [];
    beforeAll(async () => {
      h = await openTestDb(kind, { onStatement: (s) => statements.push(s) });
    });
    afterAll(async () => {
      // The built-in servers' handlers are kept per process with the first database they were given:
      // the next database's turns must not reach this one once it is closed.
      await closeBuiltinHandlers();
      await h?.close();
    });

    function runtime(model?: Awaited<ReturnType<typeof startScriptedModel>>) {
      const engine = engineDeps(h, { ...(model && { client: model.client, modelName: 'claude-test' }), tools: createAppToolHost(h.db) });
      const rt: ChatRuntime = {
        handle: h,
        engine,
        modelConfig: getModelConfig(),
        models: createModelCatalog({ client: engine.model.client, defaultModel: { id: engine.model.model, label: 'Test' } }),
        tools: { host: engine.tools!, connectDeps: { fetch: () => Promise.reject(new Error('no servers in this test')) } as never },
      };
      return { rt, idle: engine.idle };
    }
    const session = (userId: string) => ({ userId, sessionId: 'test-session' });

    it('sends each kind as its block, reading the bytes once for a turn of two steps', async () => {
      const model = await startScriptedModel([
        { blocks: [toolUse('tu_1', 'notes__search', { query: 'milk' })] },
        { blocks: [text('Seen them.')] },
      ]);
      const { rt, idle } = runtime(model);
      const { user, conversation } = await userAndConversation(h);
      const deps = fileDeps(h.db);
      const image = await uploadFile(deps, user.id, { name: 'shot.png', bytes: png(640, 480) });
      const doc = await uploadFile(deps, user.id, { name: 'report.pdf', bytes: await pdf(3) });
      const notes = await uploadFile(deps, user.id, { name: 'notes.md', bytes: utf8('# Notes\nbuy milk\n') });
      statements.length = 0;
      const sent = await sendMessage(rt, session(user.id), conversation.id, 'What are these?', {
        attachments: [{ fileId: image.id }, { fileId: doc.id }, { fileId: notes.id }],
      });
      await idle();
      await model.close();

      // One read of each file's bytes for the whole turn, though the model was asked twice.
      expect(statements.filter((s) => /from "file_blobs"/.test(s))).toHaveLength(3);
      expect(model.requests).toHaveLength(2);
      for (const request of model.requests) {
        const first = (request.body.messages as Anthropic.MessageParam[])[0]!;
        const blocks = first.content as Anthropic.ContentBlockParam[];
        expect(blocks.map((b) => b.type)).toEqual(['image', 'document', 'document', 'text']);
        expect(blocks[0]).toEqual({
          type: 'image',
          source: { type: 'base64', media_type: 'image/png', data: Buffer.from(png(640, 480)).toString('base64') },
        });
        expect(blocks[1]).toMatchObject({
          type: 'document',
          title: 'report.pdf',
          source: { type: 'base64', media_type: 'application/pdf' },
        });
        expect(blocks[2]).toEqual({
          type: 'document',
          title: 'notes.md',
          context: FILE_DOCUMENT_CONTEXT,
          source: { type: 'text', media_type: 'text/plain', data: '# Notes\nbuy milk\n' },
        });
        expect(blocks[3]).toMatchObject({ type: 'text', text: 'What are these?' });
      }

      // The page gets the files with the message at once, and again after a reload.
      expect(sent.messages?.[0]?.files?.map((f) => f.name)).toEqual(['shot.png', 'report.pdf', 'notes.md']);
      const shown = await view(rt, user.id, conversation.id);
      const mine = shown.messages.find((m) => m.role === 'user')!;
      expect(mine.files).toEqual([image, doc, notes]);
      // What is stored is a reference, never the bytes.
      expect(JSON.stringify(mine.content)).not.toContain('base64');
      expect(shown.messages.filter((m) => m.role === 'assistant').every((m) => m.files === undefined)).toBe(true);
    });

    it('the demo model says what it received', async () => {
      const { rt, idle } = runtime();
      const { user, conversation } = await userAndConversation(h);
      const deps = fileDeps(h.db);
      const ids = [
        await uploadFile(deps, user.id, { name: 'shot.png', bytes: png(640, 480) }),
        await uploadFile(deps, user.id, { name: 'report.pdf', bytes: await pdf(3) }),
        await uploadFile(deps, user.id, { name: 'notes.md', bytes: utf8('# Notes\n') }),
      ].map((f) => ({ fileId: f.id }));
      await sendMessage(rt, session(user.id), conversation.id, '', { attachments: ids });
      await idle();
      const answer = (await view(rt, user.id, conversation.id)).messages.at(-1)!;
      expect(answer.content).toEqual([
        {
          type: 'text',
          text: [
            'This is the offline demo model. I received 3 files:',
            '',
            '- an image, 640×480',
            '- a PDF of 3 pages',
            '- a text file notes.md that begins “# Notes”',
          ].join('\n'),
        },
      ]);
      // A message of files alone is named after the first.
      expect((await view(rt, user.id, conversation.id)).title).toBe('About shot.png');
    });

    it('refuses what cannot be attached, naming the entry, and stores nothing', async () => {
      const { rt } = runtime();
      const { user, conversation } = await userAndConversation(h);
      const other = await userAndConversation(h);
      const deps = fileDeps(h.db);
      const theirs = await uploadFile(deps, other.user.id, { name: 'theirs.txt', bytes: utf8('private') });
      const mine = await uploadFile(deps, user.id, { name: 'a.txt', bytes: utf8('a') });
      const refused = async (attachments: { fileId: string }[]) => {
        const err = await sendMessage(rt, session(user.id), conversation.id, 'x', { attachments }).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(AppError);
        return { message: (err as AppError).message, field: (err as AppError).field };
      };
      expect(await refused([{ fileId: mine.id }, { fileId: theirs.id }])).toEqual({
        field: 'attachments.1.fileId',
        message: `attachments.1.fileId: no file of yours with id "${theirs.id}" (upload it first: POST /api/files)`,
      });
      expect(await refused([{ fileId: mine.id }, { fileId: mine.id }])).toEqual({
        field: 'attachments.1.fileId',
        message: 'attachments.1.fileId: file "a.txt" is attached twice',
      });
      const eleven = await Promise.all(
        Array.from({ length: 11 }, (_, i) => uploadFile(deps, user.id, { name: `f${i}.txt`, bytes: utf8(`file ${i}`) })),
      );
      expect(await refused(eleven.map((f) => ({ fileId: f.id })))).toEqual({
        field: 'attachments',
        message: 'attachments: at most 10 files per message (got 11)',
      });
      expect((await view(rt, user.id, conversation.id)).messages).toEqual([]);
    });

    it('deletes a draft’s file, keeps a sent one with its conversation, and deletes it with the conversation', async () => {
      const { rt, idle } = runtime();
      const { user, conversation } = await userAndConversation(h);
      const deps = fileDeps(h.db);
      const draft = await uploadFile(deps, user.id, { name: 'draft.txt', bytes: utf8('draft') });
      await deleteOwnFile(deps, user.id, draft.id);
      const sent = await uploadFile(deps, user.id, { name: 'sent.png', bytes: png(8, 8) });
      await sendMessage(rt, session(user.id), conversation.id, 'look', { attachments: [{ fileId: sent.id }] });
      await idle();
      const kept = await deleteOwnFile(deps, user.id, sent.id).catch((e: unknown) => e);
      expect((kept as AppError).status).toBe(409);
      expect((kept as AppError).message).toBe(
        'file "sent.png": it is part of a sent message, so it is kept with its conversation (deleting the conversation deletes it).',
      );
      // The same file in another conversation of the person outlives the first one.
      const second = await createConversation(h.db, { userId: user.id, model: 'demo' });
      await sendMessage(rt, session(user.id), second.id, 'again', { attachments: [{ fileId: sent.id }] });
      await idle();
      await remove(rt, user.id, conversation.id);
      expect(await rowsOf(user.id)).toEqual([sent.id]);
      await remove(rt, user.id, second.id);
      expect(await rowsOf(user.id)).toEqual([]);
      expect(await blobsOf(user.id)).toEqual([]);
    });

    it('the sweep deletes a day-old draft’s files, not a sent one’s; the export carries the bytes', async () => {
      const { rt, idle } = runtime();
      const { user, conversation } = await userAndConversation(h);
      const deps = fileDeps(h.db);
      await uploadFile(deps, user.id, { name: 'stale.txt', bytes: utf8('stale') });
      const sent = await uploadFile(deps, user.id, { name: 'sent.txt', bytes: utf8('sent') });
      await sendMessage(rt, session(user.id), conversation.id, 'x', { attachments: [{ fileId: sent.id }] });
      await idle();
      const exported = await buildAccountExport(h.db, user.id);
      expect(exported.files.map((f) => [f.name, Buffer.from(f.base64!, 'base64').toString()])).toEqual([
        ['stale.txt', 'stale'],
        ['sent.txt', 'sent'],
      ]);
      const done = await sweep(rt.engine, h.db, await rt.engine.auditKeys(), new Date(Date.now() + 25 * 60 * 60 * 1000));
      await idle();
      expect(done.files.draftFiles).toBeGreaterThanOrEqual(2);
      expect(await rowsOf(user.id)).toEqual([sent.id]);
      expect((await blobsOf(user.id)).length).toBe(1);
    });

    async function rowsOf(userId: string) {
      return (await h.db.select({ id: files.id, userId: files.userId }).from(files)).filter((r) => r.userId === userId).map((r) => r.id);
    }
    async function blobsOf(userId: string) {
      return (await h.db.select({ key: fileBlobs.key }).from(fileBlobs)).filter((r) => r.key.startsWith(`${userId}/`)).map((r) => r.key);
    }
  });
}
