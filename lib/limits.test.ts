import { describe, expect, it } from 'vitest';

import { errorResponse } from './http/errors';
import { LIMIT_TABLE, limitExceeded, limitsFor } from './limits';

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
});

describe('a reached limit over HTTP', () => {
  it('is a 429 naming the limit and its value', async () => {
    const res = errorResponse(limitExceeded('messagesPerMinute', 20, 'Wait a minute and send it again.'));
    expect(res.status).toBe(429);
    const body = await res.json();
    expect(body.error).toEqual({
      code: 'rate_limited:messagesPerMinute',
      limit: 'messagesPerMinute',
      message: 'Limit reached: at most 20 messages per minute. Wait a minute and send it again.',
    });
  });
});
