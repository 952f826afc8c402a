import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { createConversation } from '@/db/queries/conversations';
import { insertShareLink } from '@/db/queries/shares';
import { createUser } from '@/db/queries/users';
import { shareLinks } from '@/db/schema';
import { openTestDb, TEST_DATABASES } from '@/test/db';

import { EXPIRED_SHARE_KEPT_DAYS, pruneExpiredShareLinks } from './prune';

const DAY = 86_400_000;

for (const { kind, available } of TEST_DATABASES) {
  describe.skipIf(!available)(`pruning expired share links on ${kind}`, () => {
    let h: DbHandle;
    beforeAll(async () => {
      h = await openTestDb(kind);
    });
    afterAll(async () => h?.close());

    it(`deletes links expired more than ${EXPIRED_SHARE_KEPT_DAYS} days ago, and keeps the rest`, async () => {
      const user = (await createUser(h.db, { email: `prune-${Math.random().toString(36).slice(2)}@example.test` }))!;
      const conversation = await createConversation(h.db, { userId: user.id, model: 'demo', title: 'Shared' });
      const now = new Date('2026-12-04T12:00:00Z');
      const link = async (tag: string, expiresAt: Date | null) =>
        (
          await insertShareLink(h.db, {
            userId: user.id,
            conversationId: conversation.id,
            tokenHash: `hash-${tag}-${Math.random()}`,
            includeToolDetails: false,
            audience: 'anyone',
            expiresAt,
            snapshotSeq: 0,
            snapshotTitle: 'Shared',
            snapshotAt: now,
          })
        ).id;
      const longExpired = await link('long', new Date(now.getTime() - (EXPIRED_SHARE_KEPT_DAYS + 1) * DAY));
      const recentlyExpired = await link('recent', new Date(now.getTime() - DAY));
      const live = await link('live', new Date(now.getTime() + DAY));
      const never = await link('never', null);

      expect(await pruneExpiredShareLinks(h.db, now)).toBe(1);
      const left = (await h.db.select({ id: shareLinks.id }).from(shareLinks).where(eq(shareLinks.userId, user.id))).map((r) => r.id);
      expect(left.sort()).toEqual([recentlyExpired, live, never].sort());
      expect(left).not.toContain(longExpired);
      expect(await pruneExpiredShareLinks(h.db, now)).toBe(0);
    });
  });
}
