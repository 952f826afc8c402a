import type Anthropic from '@anthropic-ai/sdk';

import type { DbHandle } from '@/db/connection';
import { createConversation } from '@/db/queries/conversations';
import { createUser } from '@/db/queries/users';
import type { EventBus } from '@/lib/agent/bus';
import { trackedSchedule, type EngineDeps } from '@/lib/agent/deps';
import type { BusEvent } from '@/lib/agent/events';
import { createModelClient } from '@/lib/model/client';
import { buildEngineDeps } from '@/lib/server/engine-deps';

/** Engine deps over a test database (no tools unless given); background work is tracked so tests can await it. */
export function engineDeps(
  h: DbHandle,
  overrides: Partial<EngineDeps> & { client?: Anthropic; modelName?: string; bus?: EventBus } = {},
): EngineDeps & { bus: EventBus; idle(): Promise<void> } {
  const { client, modelName, tools, ...rest } = overrides;
  const work = trackedSchedule((err) => console.error('background work failed', err));
  const deps = buildEngineDeps(h, {
    schedule: work.schedule,
    instanceId: 'test-instance',
    model: { client: client ?? createModelClient({ DEMO_MODEL_DELAY_MS: '0' }), model: modelName ?? 'demo' },
    tools: tools ?? null,
    ...rest,
  });
  return { ...deps, idle: work.idle };
}

export async function userAndConversation(h: DbHandle) {
  const user = await createUser(h.db, { email: `u-${Math.random().toString(36).slice(2)}@example.test`, passwordHash: 'x' });
  const conversation = await createConversation(h.db, { userId: user!.id, model: 'demo' });
  return { user: user!, conversation };
}

/** Collects bus events of a conversation. */
export async function recordEvents(bus: EventBus, conversationId: string) {
  const seen: BusEvent[] = [];
  const off = await bus.subscribe(conversationId, (e) => seen.push(e));
  return { seen, off };
}
