import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { openTestDb, TEST_DATABASES } from '../../test/db';
import type { DbHandle } from '../connection';
import { createAuthSession, endAuthSession, findLiveAuthSession } from './auth-sessions';
import {
  createConversation,
  deleteConversation,
  getConversation,
  listConversations,
  renameConversation,
  setDefaultTitle,
} from './conversations';
import { appendEvent, listEventsAfter } from './events';
import { appendMessage, listMessages } from './messages';
import { hitRateLimit, rowsOf } from './rate-limits';
import { claimLapsedRun, getActiveRun, insertRun, listLapsedRuns, renewRunLeases, requestRunCancel, updateRunIfVersion } from './runs';
import { createUser, createUserWithIdentity, findUserByEmail, findUserByIdentity, linkIdentity, setUserPlan } from './users';

for (const { kind, available } of TEST_DATABASES) {
  describe.skipIf(!available)(`queries on ${kind}`, () => {
    let h: DbHandle;
    beforeAll(async () => {
      h = await openTestDb(kind);
    });
    afterAll(async () => h?.close());

    async function newUser(email = `u${Math.random().toString(36).slice(2)}@example.test`) {
      const u = await createUser(h.db, { email, passwordHash: 'x' });
      if (!u) throw new Error('user not created');
      return u;
    }

    it('tool_calls.conversation_id has an index: the conversation page and every step filter on it', async () => {
      const plan = await h.db.execute(sql`
        select indexdef from pg_indexes where tablename = 'tool_calls' and indexdef like '%(conversation_id%'`);
      expect(rowsOf(plan)).toHaveLength(1);
    });

    it('stores emails normalized and refuses a duplicate without throwing', async () => {
      const u = await createUser(h.db, { email: '  Ada@Example.TEST ', passwordHash: 'h' });
      expect(u?.email).toBe('ada@example.test');
      expect(u?.plan).toBe('pro');
      expect(await createUser(h.db, { email: 'ADA@example.test', passwordHash: 'h2' })).toBeNull();
      expect((await findUserByEmail(h.db, 'ada@EXAMPLE.test'))?.id).toBe(u!.id);
      expect((await setUserPlan(h.db, 'ada@example.test', 'free'))?.plan).toBe('free');
    });

    it('links a provider identity to one user and finds it again by subject alone', async () => {
      const github = { provider: 'github', subject: '42' };
      const a = await createUserWithIdentity(h.db, { email: 'gh@example.test' }, github);
      expect(a?.passwordHash).toBeNull();
      expect((await findUserByIdentity(h.db, github))?.id).toBe(a!.id);
      expect(await findUserByIdentity(h.db, { provider: 'oidc', subject: '42' })).toBeNull();
      // An email taken already: nothing is written, not even the link.
      await createUser(h.db, { email: 'taken@example.test', passwordHash: 'h' });
      const google = { provider: 'google', subject: '7' };
      expect(await createUserWithIdentity(h.db, { email: 'Taken@example.test' }, google)).toBeNull();
      expect(await findUserByIdentity(h.db, google)).toBeNull();
      // A link is made once: the same identity cannot be linked to a second user.
      expect(await linkIdentity(h.db, google, a!.id)).toBe(true);
      const other = await createUser(h.db, { email: 'other@example.test' });
      expect(await linkIdentity(h.db, google, other!.id)).toBe(false);
      expect((await findUserByIdentity(h.db, google))?.id).toBe(a!.id);
    });

    it('treats ended and expired sessions as not live', async () => {
      const u = await newUser();
      const future = new Date(Date.now() + 60_000);
      await createAuthSession(h.db, { id: `s-${u.id}`, userId: u.id, expiresAt: future });
      expect(await findLiveAuthSession(h.db, `s-${u.id}`)).not.toBeNull();
      expect(await endAuthSession(h.db, `s-${u.id}`)).toBe(true);
      expect(await endAuthSession(h.db, `s-${u.id}`)).toBe(false);
      expect(await findLiveAuthSession(h.db, `s-${u.id}`)).toBeNull();
      await createAuthSession(h.db, { id: `old-${u.id}`, userId: u.id, expiresAt: new Date(Date.now() - 1000) });
      expect(await findLiveAuthSession(h.db, `old-${u.id}`)).toBeNull();
    });

    it('scopes conversations to their owner', async () => {
      const alice = await newUser();
      const bob = await newUser();
      const c = await createConversation(h.db, { userId: alice.id, model: 'demo' });
      expect(c.title).toBe('New conversation');
      expect(await getConversation(h.db, bob.id, c.id)).toBeNull();
      expect(await renameConversation(h.db, bob.id, c.id, 'hijack')).toBeNull();
      expect(await deleteConversation(h.db, bob.id, c.id)).toBe(false);
      expect(await listConversations(h.db, bob.id)).toEqual([]);
      expect((await renameConversation(h.db, alice.id, c.id, 'Mine'))?.title).toBe('Mine');
      await setDefaultTitle(h.db, c.id, 'not applied: already renamed');
      expect((await getConversation(h.db, alice.id, c.id))?.title).toBe('Mine');
      expect(await deleteConversation(h.db, alice.id, c.id)).toBe(true);
      expect(await getConversation(h.db, alice.id, c.id)).toBeNull();
    });

    it('lists conversations newest activity first', async () => {
      const u = await newUser();
      const first = await createConversation(h.db, { userId: u.id, model: 'demo', title: 'first' });
      await createConversation(h.db, { userId: u.id, model: 'demo', title: 'second' });
      await appendMessage(h.db, { conversationId: first.id, role: 'user', content: [{ type: 'text', text: 'hi' }] });
      const titles = (await listConversations(h.db, u.id)).map((c) => c.title);
      expect(titles).toEqual(['first', 'second']);
    });

    it('numbers messages and events per conversation, also under concurrency', async () => {
      const u = await newUser();
      const c = await createConversation(h.db, { userId: u.id, model: 'demo' });
      const other = await createConversation(h.db, { userId: u.id, model: 'demo' });
      await Promise.all(
        Array.from({ length: 20 }, (_, i) => appendEvent(h.db, { conversationId: c.id, runId: null, type: 'message.delta', data: { i } })),
      );
      await appendEvent(h.db, { conversationId: other.id, runId: null, type: 'x', data: {} });
      const all = await listEventsAfter(h.db, c.id, 0);
      expect(all.map((e) => e.seq)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
      expect((await listEventsAfter(h.db, c.id, 17)).map((e) => e.seq)).toEqual([18, 19, 20]);
      expect((await listEventsAfter(h.db, other.id, 0)).map((e) => e.seq)).toEqual([1]);

      const content = [{ type: 'text' as const, text: 'hello' }];
      await appendMessage(h.db, { conversationId: c.id, role: 'user', content });
      await appendMessage(h.db, { conversationId: c.id, role: 'assistant', content, stopReason: 'end_turn' });
      const msgs = await listMessages(h.db, c.id);
      expect(msgs.map((m) => [m.seq, m.role])).toEqual([
        [1, 'user'],
        [2, 'assistant'],
      ]);
      expect(msgs[0]!.content).toEqual(content);
    });

    it('allows one active run per conversation and guards writes by version and lease', async () => {
      const u = await newUser();
      const c = await createConversation(h.db, { userId: u.id, model: 'demo' });
      const soon = new Date(Date.now() + 30_000);
      const run = await insertRun(h.db, {
        conversationId: c.id,
        userId: u.id,
        sessionId: null,
        model: 'demo',
        leaseOwner: 'a',
        leaseExpiresAt: soon,
      });
      expect(run).not.toBeNull();
      expect(
        await insertRun(h.db, {
          conversationId: c.id,
          userId: u.id,
          sessionId: null,
          model: 'demo',
          leaseOwner: 'b',
          leaseExpiresAt: soon,
        }),
      ).toBeNull();
      expect((await getActiveRun(h.db, c.id))?.id).toBe(run!.id);

      // A stale version or a foreign owner writes nothing.
      const moved = await updateRunIfVersion(h.db, run!.id, run!.version, { step: 1 }, 'a');
      expect(moved?.version).toBe(run!.version + 1);
      expect(await updateRunIfVersion(h.db, run!.id, run!.version, { step: 2 }, 'a')).toBeNull();
      expect(await updateRunIfVersion(h.db, run!.id, moved!.version, { step: 2 }, 'b')).toBeNull();

      // Lease: renewable by its owner; a live lease cannot be claimed, a lapsed one can, once.
      expect(await renewRunLeases(h.db, [run!.id], 'a', soon)).toEqual([{ id: run!.id, cancelRequestedAt: null }]);
      expect(await claimLapsedRun(h.db, run!.id, 'b', soon)).toBeNull();
      const later = new Date(Date.now() + 60_000);
      expect((await listLapsedRuns(h.db, later)).map((r) => r.id)).toContain(run!.id);
      const claimed = await claimLapsedRun(h.db, run!.id, 'b', new Date(later.getTime() + 30_000), later);
      expect(claimed?.leaseOwner).toBe('b');
      expect(await claimLapsedRun(h.db, run!.id, 'c', later, later)).toBeNull();
      expect(await renewRunLeases(h.db, [run!.id], 'a', soon)).toEqual([]);

      const cancelled = await requestRunCancel(h.db, run!.id);
      expect(cancelled?.cancelRequestedAt).toBeInstanceOf(Date);
      const done = await updateRunIfVersion(h.db, run!.id, claimed!.version, { status: 'completed', endedAt: new Date() }, 'b');
      expect(done?.status).toBe('completed');
      expect(await getActiveRun(h.db, c.id)).toBeNull();
      expect(await requestRunCancel(h.db, run!.id)).toBeNull();
      // The conversation is free for the next run.
      expect(
        await insertRun(h.db, {
          conversationId: c.id,
          userId: u.id,
          sessionId: null,
          model: 'demo',
          leaseOwner: 'a',
          leaseExpiresAt: soon,
        }),
      ).not.toBeNull();
    });

    it('counts rate-limit hits in a window and starts over after it', async () => {
      const t0 = new Date('2026-01-01T00:00:00Z');
      expect(await hitRateLimit(h.db, 'k', 60_000, t0)).toBe(1);
      expect(await hitRateLimit(h.db, 'k', 60_000, new Date(t0.getTime() + 1000))).toBe(2);
      expect(await hitRateLimit(h.db, 'k', 60_000, new Date(t0.getTime() + 61_000))).toBe(1);
      expect(await hitRateLimit(h.db, 'other', 60_000, t0)).toBe(1);
    });
  });
}
