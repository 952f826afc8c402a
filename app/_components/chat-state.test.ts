import { describe, expect, it } from 'vitest';

import { toolCallViewSchema } from '@/lib/agent/event-payloads';
import { sampleToolCallView } from '@/test/sample-tool-call';

import { applyEvent, type ChatState } from './chat-state';
import type { ToolCallView } from './types';

const call = sampleToolCallView;

const state = (): ChatState => ({
  messages: [],
  partials: [],
  toolCalls: { tu_1: call() },
  activeRun: { id: 'run-1', status: 'running', stopReason: null, error: null, afterSeq: 0 },
  lastRun: null,
  lastSeq: 4,
  progress: {},
});

const signIn = { serverId: 'srv-docs', serverName: 'Docs', scopes: ['files:write'], reason: 'insufficient_scope' as const };

describe('the page applying sign-in events', () => {
  it('shows the call waiting for a sign-in, then the run paused for it', () => {
    let s = applyEvent(state(), {
      type: 'tool_call.sign_in_requested',
      data: { toolCall: call({ status: 'awaiting_sign_in', signIn }), seq: 5, runId: 'run-1' },
    });
    expect(s.toolCalls.tu_1).toMatchObject({ status: 'awaiting_sign_in', signIn });
    expect(s.activeRun!.status).toBe('running');
    s = applyEvent(s, {
      type: 'run.awaiting_sign_in',
      data: {
        status: 'awaiting_sign_in',
        toolCallIds: ['call-1'],
        servers: [{ serverId: 'srv-docs', serverName: 'Docs' }],
        seq: 6,
        runId: 'run-1',
      },
    });
    expect(s.activeRun!.status).toBe('awaiting_sign_in');
    expect(s.lastSeq).toBe(6);
  });

  it('runs again when the call starts after the sign-in', () => {
    let s = applyEvent(state(), {
      type: 'run.awaiting_sign_in',
      data: { status: 'awaiting_sign_in', toolCallIds: [], servers: [], seq: 6, runId: 'run-1' },
    });
    s = applyEvent(s, { type: 'tool_call.decided', data: { toolCall: call({ status: 'approved' }), seq: 7, runId: 'run-1' } });
    expect(s.activeRun!.status).toBe('awaiting_sign_in');
    s = applyEvent(s, { type: 'tool_call.started', data: { toolCall: call({ status: 'executing' }), seq: 8, runId: 'run-1' } });
    expect(s.activeRun!.status).toBe('running');
    expect(s.toolCalls.tu_1!.status).toBe('executing');
  });

  it('reads a tool call stored before sign-in existed (no signIn field) as not waiting for one', () => {
    const old = call();
    delete (old as Partial<ToolCallView>).signIn;
    expect(toolCallViewSchema.parse(old).signIn).toBeNull();
  });
});
