import { describe, expect, it } from 'vitest';

import { branchingBlockedReason } from './branch-guard';

describe('branchingBlockedReason', () => {
  it('offers branching when no turn is active', () => {
    expect(branchingBlockedReason(null)).toBeNull();
  });

  it('says what the turn waits for, and what the person can do about it', () => {
    expect(branchingBlockedReason({ status: 'running' })).toBe('Wait for the answer to finish, or stop it first.');
    expect(branchingBlockedReason({ status: 'awaiting_approval' })).toMatch(/waiting for your decision.*stop the turn/);
    expect(branchingBlockedReason({ status: 'awaiting_input' })).toMatch(/waiting for your answer/);
    expect(branchingBlockedReason({ status: 'awaiting_sign_in' })).toMatch(/sign in/);
  });
});
