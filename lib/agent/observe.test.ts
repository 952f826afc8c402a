import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { getRun, updateRunIfVersion } from '@/db/queries/runs';
import { createAppToolHost } from '@/lib/server/tool-host';
import { openTestDb } from '@/test/db';
import { engineDeps, userAndConversation } from '@/test/engine-harness';

import { cancelRun, startRun } from './engine';
import type { EngineObserver } from './observe';

/** The engine's observer seam from plain Node: what it is told of a turn, and that a failing observer changes nothing. */
describe('engine observer', () => {
  let h: DbHandle;
  beforeAll(async () => {
    h = await openTestDb('pglite');
  });
  afterAll(async () => {
    // Stop's closing event is sent on after the run is stored: let it go before the database closes.
    await new Promise((r) => setTimeout(r, 200));
    await h?.close();
  });

  function recorder() {
    const seen: string[] = [];
    const steps: { ms: number; firstDeltaMs: number | null; outcome: string }[] = [];
    const observer: EngineObserver = {
      turnStarted: () => seen.push('started'),
      turnEnded: (status) => seen.push(`ended:${status}`),
      toolCallEnded: (outcome) => seen.push(`tool:${outcome}`),
      modelStep: (ms, firstDeltaMs, outcome) => steps.push({ ms, firstDeltaMs, outcome }),
    };
    return { seen, steps, observer };
  }

  it('is told of the start, each model step (time to the end and to the first delta) and the end of a turn', async () => {
    const { seen, steps, observer } = recorder();
    const deps = engineDeps(h, { observe: observer });
    const { user, conversation } = await userAndConversation(h);
    await startRun(deps, { conversationId: conversation.id, userId: user.id, sessionId: null, text: 'hello there' });
    await deps.idle();
    expect(seen).toEqual(['started', 'ended:completed']);
    expect(steps).toHaveLength(1);
    expect(steps[0]!.outcome).toBe('message');
    expect(steps[0]!.firstDeltaMs).not.toBeNull();
    expect(steps[0]!.firstDeltaMs!).toBeLessThanOrEqual(steps[0]!.ms);
  });

  it('counts each tool call that ended once, by its outcome, over two model steps', async () => {
    const { seen, steps, observer } = recorder();
    // The built-in notes: their read-only search runs without asking.
    const deps = engineDeps(h, { observe: observer, tools: createAppToolHost(h.db) });
    const { user, conversation } = await userAndConversation(h);
    await startRun(deps, { conversationId: conversation.id, userId: user.id, sessionId: null, text: 'use notes__search please' });
    await deps.idle();
    expect(seen).toEqual(['started', 'tool:succeeded', 'ended:completed']);
    expect(steps.map((s) => s.outcome)).toEqual(['message', 'message']);
  });

  it('counts a Stop as a cancelled turn, and only once when the run is stopped twice', async () => {
    const { seen, observer } = recorder();
    // Nobody drives the run: Stop ends it on the spot.
    const deps = engineDeps(h, { observe: observer, schedule: () => {} });
    const { user, conversation } = await userAndConversation(h);
    const { run } = await startRun(deps, { conversationId: conversation.id, userId: user.id, sessionId: null, text: 'hi' });
    const started = (await getRun(h.db, run.id))!;
    await updateRunIfVersion(h.db, run.id, started.version, { leaseExpiresAt: new Date(Date.now() - 1000) });
    await cancelRun(deps, conversation.id);
    await cancelRun(deps, conversation.id);
    expect(seen.filter((s) => s.startsWith('ended'))).toEqual(['ended:cancelled']);
    expect((await getRun(h.db, run.id))!.status).toBe('cancelled');
  });

  it('a failing observer is logged and the turn goes on as if nobody watched', async () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    const throwing: EngineObserver = {
      turnStarted: () => {
        throw new Error('metrics down');
      },
      turnEnded: () => {
        throw new Error('metrics down');
      },
      toolCallEnded: () => {},
      modelStep: () => {
        throw new Error('metrics down');
      },
    };
    const deps = engineDeps(h, { observe: throwing });
    const { user, conversation } = await userAndConversation(h);
    const { run } = await startRun(deps, { conversationId: conversation.id, userId: user.id, sessionId: null, text: 'hello' });
    await deps.idle();
    expect((await getRun(h.db, run.id))!.status).toBe('completed');
    expect(error.mock.calls.filter((c) => String(c[0]).includes('observer failed'))).toHaveLength(3);
    error.mockRestore();
  });
});
