import { afterEach, describe, expect, it, vi } from 'vitest';

import { CONFIG_DEFAULTS, CONFIG_NAMES, ConfigError, isTestDeployment, readConfig, rereadConfig } from '.';

describe('readConfig', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('gives every variable its default when unset, and counts blank (KEY=) as unset', () => {
    const blank = Object.fromEntries(CONFIG_NAMES.map((name) => [name, '  ']));
    expect(readConfig(blank)).toEqual(readConfig({}));
    expect(readConfig({})).toEqual(CONFIG_DEFAULTS);
    expect(CONFIG_DEFAULTS).toMatchObject({ RUN_LEASE_MS: 15_000, DATABASE_POOL_SIZE: 10, TRUSTED_PROXIES: 0, DEFAULT_PLAN: 'pro' });
  });

  it('refuses every wrong variable at once, each by name with what it allows', () => {
    let error: unknown;
    try {
      readConfig({ RUN_LEASE_MS: '2s', TRUSTED_PROXIES: 'yes', DEFAULT_PLAN: 'gold', REDIS_URL: 'http://x' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      'RUN_LEASE_MS must be a whole number of at least 1 (got "2s").',
      'REDIS_URL must be a redis:// or rediss:// URL (redis://[user:password@]host[:port][/db]), or unset for the database bus.',
      'TRUSTED_PROXIES must be the number of proxies in front of the app, 0 to 10 (got "yes").',
      'DEFAULT_PLAN must be "free", "pro" or "enterprise" (got "gold").',
    ]);
  });

  it('takes a background OAuth refresh interval of 0 (off) or at least 1 s', () => {
    expect(readConfig({}).OAUTH_REFRESH_INTERVAL_MS).toBe(60_000);
    expect(readConfig({ OAUTH_REFRESH_INTERVAL_MS: '0' }).OAUTH_REFRESH_INTERVAL_MS).toBe(0);
    expect(readConfig({ OAUTH_REFRESH_INTERVAL_MS: '1000' }).OAUTH_REFRESH_INTERVAL_MS).toBe(1000);
    expect(() => readConfig({ OAUTH_REFRESH_INTERVAL_MS: '5' })).toThrow('OAUTH_REFRESH_INTERVAL_MS must be 0 (off) or at least 1000');
  });

  it("holds a switchboard_ask call under the MCP SDK client's default 60 s request timeout", () => {
    expect(readConfig({}).MCP_ASK_WAIT_MS).toBeLessThan(60_000);
    expect(readConfig({ MCP_ASK_WAIT_MS: '20000' }).MCP_ASK_WAIT_MS).toBe(20_000);
  });

  it('checks a heartbeat against the lease, and JSON settings by field', () => {
    expect(() => readConfig({ RUN_LEASE_MS: '1500' })).toThrow('RUN_HEARTBEAT_MS (1000) must be at most half of RUN_LEASE_MS (1500)');
    expect(() => readConfig({ MODEL_LIMITS: '{"m": {"contextWindow": 0, "maxOutputTokens": 1}}' })).toThrow(
      'MODEL_LIMITS["m"].contextWindow must be a whole number of tokens of at least 1 (got 0).',
    );
    expect(() => readConfig({ SWITCHBOARD_LIMITS: '{"runsPerHour": "many"}' })).toThrow(
      'SWITCHBOARD_LIMITS: runsPerHour must be a non-negative number (got "many").',
    );
  });

  it('parses process.env once, and again only when a test says so (vi.stubEnv does: test/config-setup.ts)', () => {
    vi.stubEnv('SSE_PING_MS', '1234');
    const first = readConfig();
    expect(first.SSE_PING_MS).toBe(1234);
    process.env.SSE_PING_MS = '999';
    expect(readConfig()).toBe(first);
    rereadConfig();
    expect(readConfig().SSE_PING_MS).toBe(999);
  });

  it('reads only the variables it is given, never process.env behind them', () => {
    vi.stubEnv('ANTHROPIC_MODEL', 'from-process-env');
    expect(readConfig({}).ANTHROPIC_MODEL).toBe('claude-sonnet-4-5');
  });
});

describe('test-only variables', () => {
  const shortDay = { SWITCHBOARD_TEST_SHARE_DAY_MS: '3000' };

  it('are honoured outside production builds, and in the e2e production build (PASSWORD_HASH_COST=test)', () => {
    expect(readConfig({ ...shortDay, NODE_ENV: 'test' }).SWITCHBOARD_TEST_SHARE_DAY_MS).toBe(3000);
    expect(readConfig({ ...shortDay, NODE_ENV: 'production', PASSWORD_HASH_COST: 'test' }).SWITCHBOARD_TEST_SHARE_DAY_MS).toBe(3000);
  });

  it('are ignored in production, even when malformed: a day is a day', () => {
    expect(isTestDeployment({ NODE_ENV: 'production' })).toBe(false);
    expect(readConfig({ ...shortDay, NODE_ENV: 'production' }).SWITCHBOARD_TEST_SHARE_DAY_MS).toBe(24 * 60 * 60_000);
    expect(readConfig({ SWITCHBOARD_TEST_EVENTS_HOLD_MS: 'soon', NODE_ENV: 'production' }).SWITCHBOARD_TEST_EVENTS_HOLD_MS).toBe(0);
  });
});
