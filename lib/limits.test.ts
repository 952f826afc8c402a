import { describe, expect, it } from 'vitest';

import { PLANS } from '@/db/vocabulary';

import { errorResponse } from './http/errors';
import { LIMIT_NAMES, LIMIT_TABLE, limitExceeded, limitsFor, PLAN_LIMITS } from './limits';

describe('limitsFor', () => {
  it('starts from the defaults of the table', () => {
    expect(limitsFor('pro', {}).messagesPerMinute).toBe(LIMIT_TABLE.messagesPerMinute.default);
    expect(limitsFor(null, {}).activeRunsPerUser).toBe(LIMIT_TABLE.activeRunsPerUser.default);
  });

  it('takes overrides from SWITCHBOARD_LIMITS and refuses unknown or invalid ones by name', () => {
    expect(limitsFor('pro', { SWITCHBOARD_LIMITS: '{"messagesPerMinute": 500}' }).messagesPerMinute).toBe(500);
    expect(() => limitsFor('pro', { SWITCHBOARD_LIMITS: '{"messagesPerHour": 5}' })).toThrow(/unknown limit "messagesPerHour"/);
    expect(() => limitsFor('pro', { SWITCHBOARD_LIMITS: '{"messagesPerMinute": -1}' })).toThrow(/messagesPerMinute must be/);
    expect(() => limitsFor('pro', { SWITCHBOARD_LIMITS: '[1]' })).toThrow(/JSON object/);
    expect(() => limitsFor('pro', { SWITCHBOARD_LIMITS: '{' })).toThrow(/not valid JSON/);
  });

  it('gives each plan its own turns per hour, model tokens per day and servers, free < pro < enterprise', () => {
    const [free, pro, enterprise] = PLANS.map((p) => limitsFor(p, {}));
    for (const name of ['runsPerHour', 'modelTokensPerDay', 'serversPerUser'] as const) {
      expect(free![name]).toBeLessThan(pro![name]);
      expect(pro![name]).toBeLessThan(enterprise![name]);
    }
    // Free adds no servers of its own: only the built-in ones.
    expect(free!.serversPerUser).toBe(0);
    // An unknown plan gets the defaults, never another plan's values.
    expect(limitsFor('platinum', {})).toEqual(limitsFor(null, {}));
    // Every per-plan value names a limit of the table.
    for (const values of Object.values(PLAN_LIMITS)) for (const name of Object.keys(values)) expect(LIMIT_NAMES).toContain(name);
  });
});

describe('a reached limit over HTTP', () => {
  it('is a 429 naming the limit, its value and the plan', async () => {
    const res = errorResponse(limitExceeded('messagesPerMinute', 20, 'Wait a minute and send it again.', 'pro'));
    expect(res.status).toBe(429);
    const body = await res.json();
    expect(body.error).toEqual({
      code: 'rate_limited:messagesPerMinute',
      limit: 'messagesPerMinute',
      plan: 'pro',
      message: 'Limit reached on the pro plan: at most 20 messages per minute. Wait a minute and send it again.',
    });
  });

  it('says a limit of 0 is not included in the plan, and leaves out a plan it does not know', () => {
    expect(limitExceeded('serversPerUser', 0, 'Only the built-in servers.', 'free').message).toBe(
      'Not included in the free plan: servers of your own. Only the built-in servers.',
    );
    const unknown = limitExceeded('runsPerHour', 1500, 'Wait.', 'legacy');
    expect(unknown.message).toBe('Limit reached: at most 1,500 turns started per hour. Wait.');
    expect(unknown.plan).toBeNull();
  });

  it('says one in the singular', () => {
    expect(limitExceeded('serversPerUser', 1, 'Remove one first.', 'pro').message).toBe(
      'Limit reached on the pro plan: at most 1 server of your own. Remove one first.',
    );
    expect(limitExceeded('serversPerUser', 2, 'Remove one first.', 'pro').message).toContain('at most 2 servers of your own.');
  });
});
