import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { createNote } from '@/db/queries/notes';
import { createUser } from '@/db/queries/users';
import { openTestDb, TEST_DATABASES } from '@/test/db';
import { connectInProcess } from '@/test/fixtures/builtin-mcp-client';

import { builtinAuthInfo } from './auth';
import { createNotesServerHandler } from './notes';

/** The notes server's resources: each person's notes, listed and read as their own only. */
for (const { kind, available } of TEST_DATABASES) {
  describe.skipIf(!available)(`notes as resources on ${kind}`, () => {
    let h: DbHandle;
    let alice: Client;
    let bob: Client;
    let anonymous: Client;
    let aliceId: string;
    beforeAll(async () => {
      h = await openTestDb(kind);
      const handler = createNotesServerHandler(async () => h.db);
      const newUser = async () => (await createUser(h.db, { email: `r${Math.random().toString(36).slice(2)}@example.test` }))!.id;
      aliceId = await newUser();
      alice = await connectInProcess(handler, builtinAuthInfo({ userId: aliceId }), 'builtin://notes');
      bob = await connectInProcess(handler, builtinAuthInfo({ userId: await newUser() }), 'builtin://notes');
      anonymous = await connectInProcess(handler, undefined, 'builtin://notes');
    });
    afterAll(async () => {
      await Promise.all([alice, bob, anonymous].map((c) => c?.close()));
      await h?.close();
    });

    it('lists the person’s notes and reads one as Markdown; another person sees none of them', async () => {
      const note = await createNote(h.db, aliceId, { title: 'Groceries', body: 'Tea, milk.' });
      expect(alice.getServerCapabilities()?.resources).toBeTruthy();
      const { resources } = await alice.listResources();
      expect(resources).toEqual([
        { uri: `notes://note/${note.id}`, name: 'Groceries', description: 'Tea, milk.', mimeType: 'text/markdown' },
      ]);
      const read = await alice.readResource({ uri: `notes://note/${note.id}` });
      expect(read.contents).toEqual([{ uri: `notes://note/${note.id}`, mimeType: 'text/markdown', text: '# Groceries\n\nTea, milk.' }]);

      expect((await bob.listResources()).resources).toEqual([]);
      await expect(bob.readResource({ uri: `notes://note/${note.id}` })).rejects.toThrow(/No note at notes:\/\/note\//);
      await expect(alice.readResource({ uri: 'notes://note/not-a-uuid' })).rejects.toThrow(/No note at notes:\/\/note\/not-a-uuid/);
      await expect(anonymous.listResources()).rejects.toThrow();
    });
  });
}
