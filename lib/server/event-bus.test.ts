import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { TEST_REDIS_URL } from '@/test/buses';
import { openTestDb } from '@/test/db';
import { userAndConversation } from '@/test/engine-harness';

import { eventBusFrom } from './event-bus';

describe('the event bus from the environment', () => {
  let h: DbHandle;
  beforeAll(async () => {
    h = await openTestDb('pglite');
  });
  afterAll(async () => h?.close());

  it('is the database’s own without REDIS_URL (blank counts as unset)', async () => {
    expect(eventBusFrom(h, {}).kind).toBe('postgres');
    expect(eventBusFrom(h, { REDIS_URL: '  ' }).kind).toBe('postgres');
  });

  it('refuses a REDIS_URL that is not a redis:// or rediss:// URL, saying what is allowed', () => {
    expect(() => eventBusFrom(h, { REDIS_URL: 'http://127.0.0.1:6379' })).toThrow(/REDIS_URL must be a redis:\/\/ or rediss:\/\/ URL/);
    expect(() => eventBusFrom(h, { REDIS_URL: '127.0.0.1:6379' })).toThrow(/REDIS_URL/);
  });

  it.skipIf(!TEST_REDIS_URL)('is Redis pub/sub with REDIS_URL, and carries events', async () => {
    const chosen = eventBusFrom(h, { REDIS_URL: TEST_REDIS_URL, SWITCHBOARD_INSTANCE_NAME: 'blue' });
    try {
      expect(chosen.kind).toBe('redis');
      const { conversation } = await userAndConversation(h);
      const seen: number[] = [];
      const off = await chosen.bus.subscribe(conversation.id, (e) => seen.push(e.seq!));
      await chosen.bus.persist(conversation.id, null, 'message.delta', { messageId: 'm', blockIndex: 0, offset: 0, text: 'hi' });
      await expect.poll(() => seen).toEqual([1]);
      off();
    } finally {
      await chosen.close();
    }
  });
});
