import { describe, expect, it } from 'vitest';

import { NOT_SWITCHED_ON } from '@/lib/consent/grant-source';

import { isToolCalled, offersSwitchOn } from './switch-on';

const rejected = (reason: string) => ({
  status: 'rejected' as const,
  decision: null,
  verdict: { verdict: 'reject' as const, reason, warnings: [] },
});

describe('a card’s “Switch on”', () => {
  it('is offered only for a call refused because its tool is not switched on here', () => {
    expect(offersSwitchOn(rejected(NOT_SWITCHED_ON))).toBe(true);
    // Refusals a switch does not fix: a changed tool, the plan, the policy.
    expect(offersSwitchOn(rejected('This tool changed since you enabled it; review it first.'))).toBe(false);
    expect(offersSwitchOn(rejected('No tool by this name was offered.'))).toBe(false);
    // The person's own denial, and calls that ran or wait.
    expect(offersSwitchOn({ ...rejected(NOT_SWITCHED_ON), status: 'denied' })).toBe(false);
    expect(offersSwitchOn({ ...rejected(NOT_SWITCHED_ON), decision: { kind: 'deny', reason: null, edited: false } })).toBe(false);
    expect(offersSwitchOn({ ...rejected(NOT_SWITCHED_ON), status: 'succeeded' })).toBe(false);
  });

  it('finds the tool by the name it was offered under, or by namespace and name when it was off', () => {
    const notes = { namespace: 'notes' };
    expect(isToolCalled(notes, { name: 'create', modelName: null }, 'notes__create')).toBe(true);
    expect(isToolCalled(notes, { name: 'search', modelName: 'notes__search' }, 'notes__search')).toBe(true);
    // A name fitted to the API's limits (shortened, with a hash) is matched as offered.
    expect(isToolCalled({ namespace: 'docs' }, { name: 'a'.repeat(70), modelName: 'docs__aaaa_1f2e' }, 'docs__aaaa_1f2e')).toBe(true);
    expect(isToolCalled(notes, { name: 'create', modelName: null }, 'notes__delete')).toBe(false);
    expect(isToolCalled({ namespace: 'other' }, { name: 'create', modelName: null }, 'notes__create')).toBe(false);
  });
});
