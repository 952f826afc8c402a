import type Anthropic from '@anthropic-ai/sdk';

import type { DbHandle } from '@/db/connection';
import { createConversation } from '@/db/queries/conversations';
import { appendEvent } from '@/db/queries/events';
import { insertRun, updateRunIfVersion } from '@/db/queries/runs';
import { createUser } from '@/db/queries/users';
import type { EventBus } from '@/lib/agent/bus';
import { trackedSchedule, type EngineDeps } from '@/lib/agent/deps';
import type { EventPayload } from '@/lib/agent/event-payloads';
import type { BusEvent, RunEventType } from '@/lib/agent/events';
import { createModelClient } from '@/lib/model/client';
import type { ModelCatalog } from '@/lib/model/models';
import { buildEngineDeps } from '@/lib/server/engine-deps';

/** Engine deps over a test database (no tools unless given); background work is tracked so tests can await it. */
export function engineDeps(
  h: DbHandle,
  overrides: Partial<EngineDeps> & { client?: Anthropic; modelName?: string; bus?: EventBus; models?: ModelCatalog } = {},
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

/**
 * A conversation whose run is `running` (its lease held by another instance) or paused for a
 * person, with the events that got it there; no model is involved. For event-stream tests.
 */
export async function conversationWithRun(h: DbHandle, status: 'running' | 'awaiting_approval' = 'awaiting_approval') {
  const { user, conversation } = await userAndConversation(h);
  const run = (await insertRun(h.db, {
    conversationId: conversation.id,
    userId: user.id,
    sessionId: null,
    model: 'demo',
    leaseOwner: 'another-instance',
    leaseExpiresAt: new Date(Date.now() + 10 * 60_000),
  }))!;
  let last = await appendEvent(h.db, {
    conversationId: conversation.id,
    runId: run.id,
    type: 'run.started',
    data: samplePayload('run.started'),
  });
  if (status !== 'running') {
    await updateRunIfVersion(h.db, run.id, run.version, { status });
    last = await appendEvent(h.db, {
      conversationId: conversation.id,
      runId: run.id,
      type: 'run.awaiting_approval',
      data: samplePayload('run.awaiting_approval'),
    });
  }
  return { user, conversation, run, lastSeq: last.seq };
}

const SAMPLE_CALL = {
  id: '00000000-0000-4000-8000-00000000c411',
  runId: '00000000-0000-4000-8000-0000000000r1',
  toolUseId: 'toolu_sample',
  status: 'executing',
  server: 'Fixture',
  tool: 'echo',
  modelName: 'fx__echo',
  input: {},
  argsHash: '0'.repeat(64),
  trust: 'trusted',
  hints: { annotated: false, readOnly: false, destructive: false, openWorld: false },
  verdict: null,
  decision: null,
  result: null,
  inputRequests: null,
  inputRound: null,
  signIn: null,
  waitedFor: null,
  allowForSession: { offered: true, why: null },
  hasView: false,
  askedByView: false,
  viewOf: null,
  viewsOff: false,
  viewCopy: false,
  viewContext: null,
  task: null,
  step: 0,
  proposedAt: null,
  startedAt: null,
  endedAt: null,
} as const satisfies EventPayload<'tool_call.started'>['toolCall'];

/** A valid payload for any stored event, for tests that write the log directly. */
export function samplePayload<T extends RunEventType>(type: T): EventPayload<T>;
export function samplePayload(type: RunEventType): EventPayload<RunEventType> {
  const ended = (status: 'completed' | 'failed' | 'cancelled') => ({
    status,
    stopReason: status,
    usage: { inputTokens: 0, outputTokens: 0 },
  });
  switch (type) {
    case 'run.started':
      return { model: 'demo' };
    case 'message.delta':
      return { messageId: 'm-sample', blockIndex: 0, offset: 0, text: 'x' };
    case 'message.completed':
      return {
        messageId: 'm-sample',
        message: { id: 'm-sample', role: 'assistant', content: [{ type: 'text', text: 'x' }], stopReason: 'end_turn' },
      };
    case 'message.discarded':
      return { messageId: 'm-sample', reason: 'taken_over' };
    case 'tool_call.progress':
      return { toolCallId: SAMPLE_CALL.id, progress: 1 };
    case 'run.awaiting_approval':
      return { status: 'awaiting_approval', toolCallIds: [SAMPLE_CALL.id] };
    case 'run.awaiting_input':
      return { status: 'awaiting_input', toolCallIds: [SAMPLE_CALL.id] };
    case 'run.awaiting_sign_in':
      return { status: 'awaiting_sign_in', toolCallIds: [SAMPLE_CALL.id], servers: [{ serverId: 'srv-sample', serverName: 'Sample' }] };
    case 'run.completed':
      return ended('completed');
    case 'run.failed':
      return ended('failed');
    case 'run.cancelled':
      return ended('cancelled');
    default:
      return { toolCall: SAMPLE_CALL };
  }
}
