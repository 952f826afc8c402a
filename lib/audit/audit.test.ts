import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { openPostgres, type DbHandle } from '@/db/connection';
import { getChainHead, listChainPage } from '@/db/queries/audit';
import { createUser, deleteUser } from '@/db/queries/users';
import { openTestDb, TEST_DATABASES } from '@/test/db';

import { exportAuditLines, headOfExport } from './export';
import { auditGrantChanges } from './grant-entry';
import { auditKeyring, type AuditKeyring } from './key';
import { pruneAudit } from './retention';
import { verifyChain } from './verify';
import { verifyAllChains } from './verify-all';

const KEYS: AuditKeyring = auditKeyring(Buffer.alloc(32, 7));

async function newUser(h: DbHandle): Promise<string> {
  return (await createUser(h.db, { email: `audit-${randomUUID()}@example.test`, passwordHash: 'x' }))!.id;
}

/** `n` grant entries for one user, one append each (the grant use-cases' entry point). */
async function appendGrants(h: DbHandle, userId: string, n: number, keys = KEYS): Promise<void> {
  for (let i = 0; i < n; i++) {
    await auditGrantChanges(h.db, keys, [
      {
        userId,
        change: 'created',
        scope: `tool:srv/tool_${i}`,
        grantId: randomUUID(),
        conversationId: null,
        server: { id: 'srv', name: 'Server' },
        tool: `tool_${i}`,
        by: userId,
        settings: { autoApprove: false, expiresIn: '12h' },
      },
    ]);
  }
}

async function exportText(h: DbHandle, userId: string): Promise<string> {
  let out = '';
  for await (const line of exportAuditLines(h.db, userId)) out += line;
  return out;
}

for (const { kind, available } of TEST_DATABASES) {
  describe.skipIf(!available)(`audit chain on ${kind}`, () => {
    let h: DbHandle & { url?: string };
    beforeAll(async () => {
      h = await openTestDb(kind);
    });
    afterAll(async () => h?.close());

    it('numbers one chain per user from 1, and it verifies', async () => {
      const a = await newUser(h);
      const b = await newUser(h);
      await appendGrants(h, a, 3);
      await appendGrants(h, b, 1);
      const rows = await listChainPage(h.db, a, 0, 10);
      expect(rows.map((r) => r.seq)).toEqual([1, 2, 3]);
      expect(rows[1]!.prevHmac).toBe(rows[0]!.hmac);
      expect(await verifyChain(h.db, KEYS, a)).toMatchObject({ ok: true, checked: 3, firstSeq: 1, lastSeq: 3 });
      expect(await verifyChain(h.db, KEYS, b)).toMatchObject({ ok: true, checked: 1 });
      // Another key cannot vouch for it.
      expect(await verifyChain(h.db, auditKeyring(Buffer.alloc(32, 8)), a)).toMatchObject({ ok: false, seq: 1, problem: 'unknown_key' });
    });

    it('reports an entry edited in the database, at that entry, and audit:verify exits 1', async () => {
      const a = await newUser(h);
      await appendGrants(h, a, 3);
      await h.db.execute(
        sql`update audit_entries set content = jsonb_set(content, '{scope}', '"tool:srv/other"') where user_id = ${a} and seq = 2`,
      );
      const r = await verifyChain(h.db, KEYS, a);
      expect(r).toMatchObject({ ok: false, seq: 2, problem: 'edited', checked: 1 });
      const lines: string[] = [];
      const { exitCode } = await verifyAllChains(h.db, KEYS, { print: (l) => lines.push(l) });
      expect(exitCode).toBe(1);
      expect(lines.find((l) => l.includes(a))).toMatch(
        /^BROKEN {2}user .*: at entry 2 \(edited\) — Entry 2 was changed after it was written/,
      );
      expect(lines.at(-1)).toMatch(/audit chains are broken\.$/);
    });

    it('reports a filter column changed to hide an entry, though its content is intact', async () => {
      const a = await newUser(h);
      await appendGrants(h, a, 2);
      await h.db.execute(sql`update audit_entries set tool = 'innocent' where user_id = ${a} and seq = 1`);
      expect(await verifyChain(h.db, KEYS, a)).toMatchObject({
        ok: false,
        seq: 1,
        problem: 'edited',
        message: expect.stringContaining('tool'),
      });
    });

    it('reports an entry deleted in the middle as missing', async () => {
      const a = await newUser(h);
      await appendGrants(h, a, 4);
      await h.db.execute(sql`delete from audit_entries where user_id = ${a} and seq = 2`);
      expect(await verifyChain(h.db, KEYS, a)).toMatchObject({
        ok: false,
        seq: 2,
        problem: 'missing',
        message: 'Entry 2 is missing: the log goes from entry 1 to entry 3.',
      });
      await h.db.execute(sql`delete from audit_entries where user_id = ${a} and seq = 1`);
      expect(await verifyChain(h.db, KEYS, a)).toMatchObject({ seq: 1, message: 'Entry 1 is missing: the log starts at entry 3.' });
    });

    it('reports the newest entry deleted, against the chain head', async () => {
      const a = await newUser(h);
      await appendGrants(h, a, 3);
      await h.db.execute(sql`delete from audit_entries where user_id = ${a} and seq = 3`);
      expect(await verifyChain(h.db, KEYS, a)).toMatchObject({ ok: false, seq: 3, problem: 'tail_deleted' });
      const { exitCode } = await verifyAllChains(h.db, KEYS, { print: () => {} });
      expect(exitCode).toBe(1);
    });

    it('reports the newest entry deleted with the head rewound to match, against an exported head', async () => {
      const a = await newUser(h);
      await appendGrants(h, a, 3);
      const head = headOfExport(await exportText(h, a))!;
      expect(head).toMatchObject({ type: 'head', userId: a, seq: 3 });
      const [, second] = await listChainPage(h.db, a, 0, 10);
      await h.db.execute(sql`delete from audit_entries where user_id = ${a} and seq = 3`);
      await h.db.execute(sql`update audit_chain_heads set last_seq = 2, last_hmac = ${second!.hmac} where user_id = ${a}`);
      // The database alone now looks whole: only the export can tell.
      expect(await verifyChain(h.db, KEYS, a)).toMatchObject({ ok: true, lastSeq: 2 });
      expect(await verifyChain(h.db, KEYS, a, { head: { seq: head.seq, hmac: head.hmac! } })).toMatchObject({
        ok: false,
        seq: 3,
        problem: 'tail_deleted',
      });
      const lines: string[] = [];
      expect((await verifyAllChains(h.db, KEYS, { exportHead: head, print: (l) => lines.push(l) })).exitCode).toBe(1);
      expect(lines.find((l) => l.includes(a))).toMatch(/tail_deleted.*export's head, entry 3/);
    });

    it('exports every entry as JSON Lines, oldest first, with the chain head as the last line', async () => {
      const a = await newUser(h);
      await appendGrants(h, a, 3);
      const lines = (await exportText(h, a))
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(lines.map((l) => l.type)).toEqual(['entry', 'entry', 'entry', 'head']);
      expect(lines.slice(0, 3).map((l) => l.seq)).toEqual([1, 2, 3]);
      const stored = await getChainHead(h.db, a);
      expect(lines[3]).toMatchObject({ type: 'head', userId: a, seq: 3, hmac: stored!.lastHmac, prunedThroughSeq: 0 });
      expect(lines[2].hmac).toBe(stored!.lastHmac);
      expect(lines[1].content).toMatchObject({ kind: 'grant', change: 'created', scope: 'tool:srv/tool_1' });
    });

    it('keeps one valid chain when two instances append in parallel', async () => {
      const a = await newUser(h);
      // Two connections to the same Postgres (two instances); PGlite has one process, so parallel appends on it.
      const second = h.url ? await openPostgres(h.url, { max: 4 }) : h;
      try {
        await Promise.all(Array.from({ length: 12 }, (_, i) => appendGrants(i % 2 ? second : h, a, 2)));
      } finally {
        if (second !== h) await second.close();
      }
      const rows = await listChainPage(h.db, a, 0, 100);
      expect(rows.map((r) => r.seq)).toEqual(Array.from({ length: 24 }, (_, i) => i + 1));
      expect(await verifyChain(h.db, KEYS, a)).toMatchObject({ ok: true, checked: 24, lastSeq: 24 });
    });

    it('prunes entries past retention and what is left still verifies; a faked prune does not', async () => {
      const a = await newUser(h);
      await appendGrants(h, a, 3);
      await new Promise((r) => setTimeout(r, 20));
      const cut = Date.now();
      await new Promise((r) => setTimeout(r, 20));
      await appendGrants(h, a, 2);
      // One day of retention, "now" one day after the cut: the first three are past it.
      const pruned = await pruneAudit(h.db, KEYS, { days: 1, now: new Date(cut + 86_400_000) });
      expect(pruned.entries).toBeGreaterThanOrEqual(3); // other tests' users too: the database is shared
      expect((await listChainPage(h.db, a, 0, 10)).map((r) => r.seq)).toEqual([4, 5]);
      expect(await verifyChain(h.db, KEYS, a)).toMatchObject({ ok: true, checked: 2, firstSeq: 4, lastSeq: 5, prunedThroughSeq: 3 });
      await appendGrants(h, a, 1);
      expect(await verifyChain(h.db, KEYS, a)).toMatchObject({ ok: true, checked: 3, lastSeq: 6 });
      // The export starts after the pruned part and still ends with the head.
      const lines = (await exportText(h, a))
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(lines.map((l) => l.seq)).toEqual([4, 5, 6, 6]);

      // Deleting the oldest kept entry by hand, and moving the anchor without the key, are both caught.
      await h.db.execute(sql`delete from audit_entries where user_id = ${a} and seq = 4`);
      expect(await verifyChain(h.db, KEYS, a)).toMatchObject({ ok: false, seq: 4, problem: 'missing' });
      const [fifth] = await listChainPage(h.db, a, 0, 10);
      await h.db.execute(sql`update audit_chain_heads set pruned_through_seq = 4, anchor_hmac = ${fifth!.prevHmac} where user_id = ${a}`);
      expect(await verifyChain(h.db, KEYS, a)).toMatchObject({ ok: false, seq: 5, problem: 'anchor' });
    });

    it('leaves a broken chain whole when pruning, and reports it', async () => {
      const a = await newUser(h);
      await appendGrants(h, a, 2);
      await h.db.execute(sql`update audit_entries set content = jsonb_set(content, '{tool}', '"x"') where user_id = ${a} and seq = 1`);
      const pruned = await pruneAudit(h.db, KEYS, { days: 1, now: new Date(Date.now() + 2 * 86_400_000) });
      expect(pruned.broken).toContain(a);
      expect((await listChainPage(h.db, a, 0, 10)).map((r) => r.seq)).toEqual([1, 2]);
    });

    it('verifies entries signed with an earlier key after a rotation (AUDIT_KEY_PREVIOUS)', async () => {
      const a = await newUser(h);
      const old = auditKeyring(Buffer.alloc(32, 1));
      await appendGrants(h, a, 2, old);
      const rotated = auditKeyring(Buffer.alloc(32, 2), [Buffer.alloc(32, 1)]);
      await appendGrants(h, a, 1, rotated);
      expect(await verifyChain(h.db, rotated, a)).toMatchObject({ ok: true, checked: 3 });
      expect(await verifyChain(h.db, auditKeyring(Buffer.alloc(32, 2)), a)).toMatchObject({ ok: false, seq: 1, problem: 'unknown_key' });
    });

    it('deletes a user’s log with their account', async () => {
      const a = await newUser(h);
      await appendGrants(h, a, 2);
      await deleteUser(h.db, a);
      expect(await listChainPage(h.db, a, 0, 10)).toEqual([]);
      expect(await getChainHead(h.db, a)).toBeNull();
    });
  });
}
