import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { getRun, insertRun, requestRunCancel, updateRunIfVersion } from '@/db/queries/runs';
import { openTestDb, TEST_DATABASES } from '@/test/db';
import { userAndConversation } from '@/test/engine-harness';

import { holdLease, type Renewal } from './lease-keeper';

const RENEWAL = /^update "runs" set "lease_expires_at"/;

for (const { kind, available } of TEST_DATABASES) {
  describe.skipIf(!available)(`run leases renewed together on ${kind}`, () => {
    let h: DbHandle & { url?: string };
    const statements: string[] = [];
    beforeAll(async () => {
      h = await openTestDb(kind, { onStatement: (s) => statements.push(s) });
    });
    afterAll(async () => h?.close());

    async function runningRun(owner: string) {
      const { user, conversation } = await userAndConversation(h);
      const run = await insertRun(h.db, {
        conversationId: conversation.id,
        userId: user.id,
        sessionId: null,
        model: 'demo',
        leaseOwner: owner,
        leaseExpiresAt: new Date(Date.now() + 5_000),
      });
      return run!;
    }

    /** The next renewal each held run is told of. */
    function holdAll(owner: string, runIds: string[]) {
      const told = new Map<string, Renewal>();
      let release: (() => void)[] = [];
      // How many renewal statements had been sent once every run was told.
      const all = new Promise<number>((resolve) => {
        release = runIds.map((id) =>
          holdLease(h.db, { owner, heartbeatMs: 20, leaseMs: 60_000 }, id, (lease) => {
            if (!told.has(id)) told.set(id, lease);
            if (told.size === runIds.length) resolve(statements.filter((s) => RENEWAL.test(s)).length);
          }),
        );
      });
      return { told, all, releaseAll: () => release.forEach((r) => r()) };
    }

    it('renews every run an instance drives in one statement a heartbeat, and tells each what it found', async () => {
      const owner = `keeper-${kind}`;
      const [kept, stopped, lost, ended] = [
        await runningRun(owner),
        await runningRun(owner),
        await runningRun(owner),
        await runningRun(owner),
      ];
      await requestRunCancel(h.db, stopped.id);
      // Another instance took one over; another left `running`.
      await updateRunIfVersion(h.db, lost.id, lost.version, { leaseOwner: 'another' });
      await updateRunIfVersion(h.db, ended.id, ended.version, { status: 'completed', endedAt: new Date() });
      statements.length = 0;

      const { told, all, releaseAll } = holdAll(owner, [kept.id, stopped.id, lost.id, ended.id]);
      const renewals = await all;
      releaseAll();

      expect(told.get(kept.id)).toEqual({ cancelRequestedAt: null });
      expect(told.get(stopped.id)?.cancelRequestedAt).toBeInstanceOf(Date);
      expect(told.get(lost.id)).toBeNull();
      expect(told.get(ended.id)).toBeNull();
      // All four were told by one statement, and nothing else was sent.
      expect(renewals).toBe(1);
      expect(statements.filter((s) => !RENEWAL.test(s))).toEqual([]);
      expect((await getRun(h.db, kept.id))!.leaseExpiresAt!.getTime()).toBeGreaterThan(Date.now() + 30_000);
      expect((await getRun(h.db, lost.id))!.leaseExpiresAt!.getTime()).toBeLessThan(Date.now() + 30_000);
    });

    it('does not tell a drive that let go what was renewed for it, nor renew once every drive has let go', async () => {
      const owner = `keeper-release-${kind}`;
      const [a, b] = [await runningRun(owner), await runningRun(owner)];
      const first: Renewal[] = [];
      const letGo = holdLease(h.db, { owner, heartbeatMs: 20, leaseMs: 60_000 }, a.id, (lease) => first.push(lease));
      letGo();
      const { told, all, releaseAll } = holdAll(owner, [b.id]);
      await all;
      releaseAll();
      expect(told.get(b.id)).toEqual({ cancelRequestedAt: null });
      expect(first).toEqual([]);
      // a was let go before any renewal: its lease is as it was written.
      expect((await getRun(h.db, a.id))!.leaseExpiresAt!.getTime()).toBe(a.leaseExpiresAt!.getTime());
    });

    // One statement renews every run: one that hangs (a lock wait here; a dead pooled connection in
    // production) must not let the leases lapse under drives that keep going. A second connection
    // holds the run's row, so the renewals wait; the drive is told its lease is lost before it lapses.
    it.skipIf(kind !== 'postgres')('tells a drive its lease is lost before it lapses when renewals hang', async () => {
      const owner = `keeper-stuck-${kind}`;
      const run = await runningRun(owner);
      const blocker = new pg.Client({ connectionString: h.url });
      await blocker.connect();
      try {
        await blocker.query('begin');
        await blocker.query('select 1 from runs where id = $1 for update', [run.id]);
        const leaseMs = 600;
        const started = Date.now();
        const told = await new Promise<Renewal>((resolve) => {
          const letGo = holdLease(h.db, { owner, heartbeatMs: 50, leaseMs }, run.id, (lease) => {
            letGo();
            resolve(lease);
          });
        });
        expect(told).toBeNull();
        expect(Date.now() - started).toBeLessThan(leaseMs);
      } finally {
        await blocker.query('rollback');
        await blocker.end();
      }
    });
  });
}
