import { describe, expect, it } from 'vitest';

import { ACTIVE_RUN_STATUSES, ENDED_RUN_STATUSES, PAUSED_RUN_STATUSES, RUN_STATUSES } from '@/db/vocabulary';

import { canTransition, checkTransition, IllegalTransition } from './run-state';

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
