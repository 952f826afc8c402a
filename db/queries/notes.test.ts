import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { openTestDb, TEST_DATABASES } from '../../test/db';
import type { DbHandle } from '../connection';
import { createNote, deleteNote, getNote, searchNotes, updateNote } from './notes';
import { createUser } from './users';

for (const { kind, available } of TEST_DATABASES) {
  describe.skipIf(!available)(`notes queries on ${kind}`, () => {
    let h: DbHandle;
    beforeAll(async () => {
      h = await openTestDb(kind);
    });
    afterAll(async () => h?.close());

    async function newUser() {
      const u = await createUser(h.db, { email: `n${Math.random().toString(36).slice(2)}@example.test` });
      if (!u) throw new Error('user not created');
      return u.id;
    }

    it('searches title and body case-insensitively, newest first, with a snippet around the match', async () => {
      const me = await newUser();
      const t0 = Date.now();
      const a = await createNote(h.db, me, { title: 'Groceries', body: 'milk, eggs' });
      const b = await createNote(h.db, me, { title: 'Trip', body: `${'filler '.repeat(40)}pack the PASSPORT and ${'more '.repeat(60)}` });
      await createNote(h.db, me, { title: 'Other', body: 'nothing here' });
      await updateNote(h.db, me, a.id, { body: 'milk, eggs, passport photo' }, new Date(t0 + 60_000));

      const hits = await searchNotes(h.db, me, { query: 'Passport', limit: 10 });
      expect(hits.map((x) => x.id)).toEqual([a.id, b.id]);
      const trip = hits[1]!;
      expect(trip.snippet).toMatch(/^….*pack the PASSPORT.*…$/);
      expect(trip.snippet.length).toBeLessThanOrEqual(202);
      expect((await searchNotes(h.db, me, { query: 'grocer' })).map((x) => x.id)).toEqual([a.id]);
    });

    it('lists recent notes for an empty query and honours the limit', async () => {
      const me = await newUser();
      const ids = [];
      for (let i = 0; i < 4; i++) ids.push((await createNote(h.db, me, { title: `n${i}`, body: '' })).id);
      for (let i = 0; i < 4; i++) await updateNote(h.db, me, ids[i]!, { title: `n${i}` }, new Date(Date.now() + i * 1000));
      const recent = await searchNotes(h.db, me, { query: '  ', limit: 3 });
      expect(recent.map((x) => x.title)).toEqual(['n3', 'n2', 'n1']);
    });

    it('matches LIKE wildcards literally', async () => {
      const me = await newUser();
      await createNote(h.db, me, { title: '100% done', body: '' });
      await createNote(h.db, me, { title: '1000 things', body: 'a_b' });
      expect((await searchNotes(h.db, me, { query: '0%' })).map((x) => x.title)).toEqual(['100% done']);
      expect((await searchNotes(h.db, me, { query: '_' })).map((x) => x.title)).toEqual(['1000 things']);
      expect(await searchNotes(h.db, me, { query: '\\' })).toEqual([]);
    });

    it('scopes every operation to the owner', async () => {
      const alice = await newUser();
      const bob = await newUser();
      const n = await createNote(h.db, alice, { title: 'Secret', body: 'alice only' });
      expect(await getNote(h.db, bob, n.id)).toBeNull();
      expect(await searchNotes(h.db, bob, { query: 'secret' })).toEqual([]);
      expect(await updateNote(h.db, bob, n.id, { title: 'pwned' })).toBeNull();
      expect(await deleteNote(h.db, bob, n.id)).toBeNull();
      expect((await getNote(h.db, alice, n.id))?.title).toBe('Secret');
    });

    it('updates only the given fields and moves updated_at', async () => {
      const me = await newUser();
      const n = await createNote(h.db, me, { title: 'T', body: 'B' });
      const later = new Date(n.updatedAt.getTime() + 5_000);
      const u = await updateNote(h.db, me, n.id, { body: 'B2' }, later);
      expect(u).toMatchObject({ title: 'T', body: 'B2' });
      expect(u!.updatedAt.getTime()).toBe(later.getTime());
      expect(u!.createdAt.getTime()).toBe(n.createdAt.getTime());
    });

    it('deletes only when the title matches, when asked to check it', async () => {
      const me = await newUser();
      const n = await createNote(h.db, me, { title: 'Exact Title', body: '' });
      expect(await deleteNote(h.db, me, n.id, { ifTitle: 'exact title' })).toBeNull();
      expect(await getNote(h.db, me, n.id)).not.toBeNull();
      expect(await deleteNote(h.db, me, n.id, { ifTitle: 'Exact Title' })).toEqual({ id: n.id, title: 'Exact Title' });
      expect(await getNote(h.db, me, n.id)).toBeNull();
      expect(await deleteNote(h.db, me, n.id)).toBeNull();
    });
  });
}
