import { describe, expect, it } from 'vitest';

import { DEFAULT_HEARTBEAT_MS, DEFAULT_LEASE_MS } from '@/lib/agent/deps';

import { instanceIdFrom, leaseTimingFrom } from './lease-timing';

describe('lease timing from the environment', () => {
  it('defaults to a 15 s lease renewed every second', () => {
    expect(leaseTimingFrom({})).toEqual({ leaseMs: DEFAULT_LEASE_MS, heartbeatMs: DEFAULT_HEARTBEAT_MS });
    expect(leaseTimingFrom({ RUN_LEASE_MS: '', RUN_HEARTBEAT_MS: '' })).toEqual({ leaseMs: 15_000, heartbeatMs: 1_000 });
  });

  it('reads short leases for tests', () => {
    expect(leaseTimingFrom({ RUN_LEASE_MS: '2000', RUN_HEARTBEAT_MS: '250' })).toEqual({ leaseMs: 2000, heartbeatMs: 250 });
  });

  it('refuses what is not a whole number of at least 1, naming the variable', () => {
    expect(() => leaseTimingFrom({ RUN_LEASE_MS: '2s' })).toThrow('RUN_LEASE_MS must be a whole number of at least 1 (got "2s").');
    expect(() => leaseTimingFrom({ RUN_HEARTBEAT_MS: '0' })).toThrow('RUN_HEARTBEAT_MS must be a whole number of at least 1 (got "0").');
  });

  it('refuses a heartbeat slower than half the lease (a live instance would lose its runs)', () => {
    expect(() => leaseTimingFrom({ RUN_LEASE_MS: '2000', RUN_HEARTBEAT_MS: '1500' })).toThrow(
      'RUN_HEARTBEAT_MS (1500) must be at most half of RUN_LEASE_MS (2000)',
    );
    expect(() => leaseTimingFrom({ RUN_LEASE_MS: '1500' })).toThrow('RUN_HEARTBEAT_MS (1000) must be at most half of RUN_LEASE_MS (1500)');
    expect(leaseTimingFrom({ RUN_LEASE_MS: '2000', RUN_HEARTBEAT_MS: '1000' })).toEqual({ leaseMs: 2000, heartbeatMs: 1000 });
  });
});

describe('the lease owner id', () => {
  it('is the role, pid and a random part, after the instance name when one is set', () => {
    expect(instanceIdFrom('app', 42, 'abcd1234', {})).toBe('app-42-abcd1234');
    expect(instanceIdFrom('sweep', 7, 'ffff0000', { SWITCHBOARD_INSTANCE_NAME: 'eu-1.a' })).toBe('eu-1.a-sweep-7-ffff0000');
  });

  it('refuses a name that is not a short plain word', () => {
    expect(() => instanceIdFrom('app', 1, 'x', { SWITCHBOARD_INSTANCE_NAME: 'two words' })).toThrow(
      'SWITCHBOARD_INSTANCE_NAME must be 1–40 letters, digits, dots, dashes or underscores, starting with a letter or digit ' +
        '(got "two words").',
    );
    expect(() => instanceIdFrom('app', 1, 'x', { SWITCHBOARD_INSTANCE_NAME: '-a' })).toThrow('SWITCHBOARD_INSTANCE_NAME');
  });
});
