import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { createUser } from '@/db/queries/users';
import { openTestDb, TEST_DATABASES } from '@/test/db';
import { call, connectInProcess } from '@/test/fixtures/builtin-mcp-client';

import { builtinAuthInfo } from './auth';
import { createNotesServerHandler } from './notes';

type JsonSchema = { properties: Record<string, Record<string, unknown>>; required?: string[] };
const MISSING = '00000000-0000-4000-8000-000000000000';

for (const { kind, available } of TEST_DATABASES) {
  describe.skipIf(!available)(`notes MCP server on ${kind}`, () => {
    let h: DbHandle;
    let alice: Client;
    let bob: Client;
    let anonymous: Client;
    beforeAll(async () => {
      h = await openTestDb(kind);
      const handler = createNotesServerHandler(async () => h.db);
      const newUser = async () => (await createUser(h.db, { email: `m${Math.random().toString(36).slice(2)}@example.test` }))!.id;
      alice = await connectInProcess(handler, builtinAuthInfo({ userId: await newUser() }), 'builtin://notes');
      bob = await connectInProcess(handler, builtinAuthInfo({ userId: await newUser() }), 'builtin://notes');
      anonymous = await connectInProcess(handler, undefined, 'builtin://notes');
    });
    afterAll(async () => {
      await Promise.all([alice, bob, anonymous].map((c) => c?.close()));
      await h?.close();
    });

    it('negotiates the modern era and lists strict, annotated tools with output schemas', async () => {
      expect(alice.getProtocolEra()).toBe('modern');
      const { tools } = await alice.listTools();
      const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
      expect(Object.keys(byName).sort()).toEqual(['create', 'delete', 'get', 'search', 'update']);
      expect(byName.search!.annotations).toMatchObject({ title: 'Search notes', readOnlyHint: true, openWorldHint: false });
      expect(byName.get!.annotations).toMatchObject({ readOnlyHint: true });
      expect(byName.create!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: false });
      expect(byName.update!.annotations).toMatchObject({ idempotentHint: true, destructiveHint: false });
      expect(byName.delete!.annotations).toMatchObject({ destructiveHint: true });
      for (const t of tools) {
        expect(t.annotations?.title, t.name).toBeTruthy();
        expect(t.description!.length, t.name).toBeGreaterThan(150);
        expect(t.inputSchema.additionalProperties, t.name).toBe(false);
        expect(t.outputSchema?.type, t.name).toBe('object');
        expect(JSON.stringify(t.inputSchema), t.name).not.toMatch(/userId/i);
      }
      const search = byName.search!.inputSchema as JsonSchema;
      expect(search.required).toEqual(['query']);
      expect(search.properties.query.maxLength).toBe(200);
      expect(search.properties.limit).toMatchObject({ type: 'integer', minimum: 1, maximum: 50, default: 10 });
      expect((byName.create!.inputSchema as JsonSchema).properties.body.maxLength).toBe(100_000);
      expect((byName.create!.inputSchema as JsonSchema).required).toEqual(['title', 'body']);
      expect(byName.update!.inputSchema).toMatchObject({ required: ['id'], minProperties: 2 });
      expect((byName.delete!.inputSchema as JsonSchema).required).toEqual(['id', 'confirmTitle']);
      expect(Object.keys((byName.search!.outputSchema as JsonSchema).properties)).toEqual(['notes']);
    });

    it('creates, finds, reads, updates and deletes a note end to end', async () => {
      const created = await call(alice, 'create', { title: '  Reading list ', body: 'Dune; Hyperion' });
      expect(created.isError).toBe(false);
      const note = created.data!.note;
      expect(note).toMatchObject({ title: 'Reading list', body: 'Dune; Hyperion' });
      expect(JSON.parse(created.text)).toEqual(created.data);

      const found = await call(alice, 'search', { query: 'HYPERION' });
      expect(found.data!.notes).toEqual([{ id: note.id, title: 'Reading list', snippet: 'Dune; Hyperion', updatedAt: note.updatedAt }]);

      const got = await call(alice, 'get', { id: note.id });
      expect(got.data).toEqual({ note });

      const updated = await call(alice, 'update', { id: note.id, body: 'Dune; Hyperion; Solaris' });
      expect(updated.data!.note).toMatchObject({ id: note.id, title: 'Reading list', body: 'Dune; Hyperion; Solaris' });
      expect(Date.parse(updated.data!.note.updatedAt)).toBeGreaterThanOrEqual(Date.parse(note.updatedAt));

      const deleted = await call(alice, 'delete', { id: note.id, confirmTitle: 'Reading list' });
      expect(deleted.data).toEqual({ deleted: { id: note.id, title: 'Reading list' } });
      const gone = await call(alice, 'get', { id: note.id });
      expect(gone.isError).toBe(true);
      expect(gone.text).toContain('not found');
    });

    it("keeps users apart: another user's note reads as not found and stays untouched", async () => {
      const { data } = await call(alice, 'create', { title: 'Private', body: 'for alice' });
      const id = data!.note.id;
      for (const [tool, args] of [
        ['get', { id }],
        ['update', { id, title: 'Hijacked' }],
        ['delete', { id, confirmTitle: 'Private' }],
      ] as const) {
        const r = await call(bob, tool, args);
        expect(r.isError, tool).toBe(true);
        expect(r.text, tool).toContain(`note not found: id "${id}"`);
      }
      expect((await call(bob, 'search', { query: 'private' })).data).toEqual({ notes: [] });
      expect((await call(alice, 'get', { id })).data!.note).toMatchObject({ title: 'Private', body: 'for alice' });
    });

    it('refuses a delete whose confirmTitle is not the exact title and keeps the note', async () => {
      const { data } = await call(alice, 'create', { title: 'Tax 2026', body: 'receipts' });
      const id = data!.note.id;
      const r = await call(alice, 'delete', { id, confirmTitle: 'tax 2026' });
      expect(r.isError).toBe(true);
      expect(r.result.structuredContent).toBeUndefined();
      expect(r.text).toContain('delete refused');
      expect(r.text).toContain('"tax 2026"');
      expect(r.text).toMatch(/Call get with this id to read the exact title/);
      expect(r.text).not.toContain('Tax 2026'); // the model has to read it, not copy it from the error
      expect((await call(alice, 'get', { id })).data!.note.title).toBe('Tax 2026');
    });

    it('answers bad input with an isError result naming the field, the value and what is allowed', async () => {
      const bad = await call(alice, 'get', { id: 'note-1' });
      expect(bad.isError).toBe(true);
      expect(bad.text).toMatch(/id: expected a note id \(a UUID.*\(received "note-1"\)/);

      const big = await call(alice, 'search', { query: 'x', limit: 99 });
      expect(big.isError).toBe(true);
      expect(big.text).toMatch(/limit: Too big: expected number to be <=50 \(received 99\)/);

      const empty = await call(alice, 'update', { id: MISSING });
      expect(empty.isError).toBe(true);
      expect(empty.text).toContain('give at least one of title or body');

      const missing = await call(alice, 'update', { id: MISSING, title: 'x' });
      expect(missing.isError).toBe(true);
      expect(missing.text).toContain(`note not found: id "${MISSING}"`);

      const blank = await call(alice, 'create', { title: '   ', body: '' });
      expect(blank.isError).toBe(true);
      expect(blank.text).toMatch(/title: .*>=1 characters/);
    });

    it('rejects a userId argument instead of acting for that user', async () => {
      const { data } = await call(alice, 'create', { title: 'Mine', body: '' });
      const r = await call(bob, 'get', { id: data!.note.id, userId: 'whoever' });
      expect(r.isError).toBe(true);
      expect(r.text).toContain('Unrecognized key: "userId"');
      expect(r.text).toContain('allowed keys are id');
      const s = await call(bob, 'search', { query: 'Mine', userId: 'whoever' });
      expect(s.isError).toBe(true);
      expect(s.result.structuredContent).toBeUndefined();
    });

    it('refuses every call that arrives without a signed-in user', async () => {
      for (const [tool, args] of [
        ['search', { query: '' }],
        ['create', { title: 'x', body: '' }],
      ] as const) {
        const r = await call(anonymous, tool, args);
        expect(r.isError, tool).toBe(true);
        expect(r.text, tool).toContain('no signed-in user');
      }
    });
  });
}
