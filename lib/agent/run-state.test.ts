import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { listEventsAfter } from '@/db/queries/events';
import { getRun } from '@/db/queries/runs';
import { ACTIVE_RUN_STATUSES, ENDED_RUN_STATUSES, PAUSED_RUN_STATUSES, RUN_STATUSES } from '@/db/vocabulary';
import { openTestDb, TEST_DATABASES } from '@/test/db';
import { conversationWithRun, engineDeps } from '@/test/engine-harness';

import { canTransition, checkTransition, IllegalTransition, LeaseLost, transitionRun } from './run-state';

describe('run status transitions', () => {
  it('a running run pauses for a person (a decision, an answer, a sign-in) or ends', () => {
    for (const to of ['awaiting_approval', 'awaiting_input', 'awaiting_sign_in', 'completed', 'failed', 'cancelled'] as const) {
      expect(canTransition('running', to)).toBe(true);
    }
  });

  it('a run waiting for a sign-in goes back to running once the person signed in, or ends on Stop', () => {
    expect(canTransition('awaiting_sign_in', 'running')).toBe(true);
    expect(canTransition('awaiting_sign_in', 'cancelled')).toBe(true);
    expect(canTransition('awaiting_sign_in', 'awaiting_approval')).toBe(false);
    expect(canTransition('awaiting_sign_in', 'awaiting_input')).toBe(false);
  });

  it('every paused status behaves alike, and is active (a new message gets 409)', () => {
    for (const paused of PAUSED_RUN_STATUSES) {
      expect(ACTIVE_RUN_STATUSES).toContain(paused);
      expect(RUN_STATUSES.filter((to) => canTransition(paused, to))).toEqual(['running', ...ENDED_RUN_STATUSES]);
    }
    expect(ACTIVE_RUN_STATUSES).toContain('awaiting_sign_in');
  });

  it('an ended run stays ended', () => {
    for (const ended of ENDED_RUN_STATUSES) expect(RUN_STATUSES.filter((to) => canTransition(ended, to))).toEqual([]);
    expect(() => checkTransition({ id: 'r1', status: 'cancelled' }, 'running')).toThrow(IllegalTransition);
    expect(() => checkTransition({ id: 'r1', status: 'cancelled' }, 'running')).toThrow('run r1 cannot go from cancelled to running');
    expect(() => checkTransition({ id: 'r1', status: 'awaiting_sign_in' }, 'running')).not.toThrow();
  });
});

for (const { kind, available } of TEST_DATABASES) {
  describe.skipIf(!available)(`transitionRun checks the move on ${kind}`, () => {
    let h: DbHandle;
    beforeAll(async () => {
      h = await openTestDb(kind);
    });
    afterAll(async () => h?.close());

    it('refuses an illegal move of the current row and writes nothing (a stale row is LeaseLost, as before)', async () => {
      const { conversation, run: inserted } = await conversationWithRun(h, 'awaiting_approval');
      const run = (await getRun(h.db, inserted.id))!;
      const deps = engineDeps(h);
      const ended = await transitionRun(h.db, deps.events, run, { status: 'cancelled', endedAt: new Date() });
      const eventsBefore = (await listEventsAfter(h.db, conversation.id, 0)).length;
      await expect(
        transitionRun(h.db, deps.events, ended, { status: 'running' }, { events: [{ type: 'run.started', data: { model: 'demo' } }] }),
      ).rejects.toThrow(IllegalTransition);
      await expect(transitionRun(h.db, deps.events, run, { status: 'running' })).rejects.toThrow(LeaseLost);
      expect((await getRun(h.db, run.id))!).toMatchObject({ status: 'cancelled', version: ended.version });
      expect(await listEventsAfter(h.db, conversation.id, 0)).toHaveLength(eventsBefore);
      // A paused run goes back to running (what a decision or a sign-in does).
      const paused = (await getRun(h.db, (await conversationWithRun(h, 'awaiting_approval')).run.id))!;
      await expect(transitionRun(h.db, deps.events, paused, { status: 'running' })).resolves.toMatchObject({ status: 'running' });
    });
  });
}
