import { describe, expect, it } from 'vitest';

import { toolCallViewSchema } from '@/lib/agent/event-payloads';
import { sampleToolCallView } from '@/test/sample-tool-call';

import type { ToolCallView } from '../types';
import { applyEvent, type ChatState } from './chat-state';

const call = sampleToolCallView;

const state = (): ChatState => ({
  messages: [],
  earlier: 0,
  partials: [],
  toolCalls: { tu_1: call() },
  activeRun: { id: 'run-1', status: 'running', stopReason: null, error: null, afterSeq: 0 },
  lastRun: null,
  lastSeq: 4,
  progress: {},
  retrying: null,
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

describe('the page applying a model retry', () => {
  it('says the model call is tried again, until the answer starts or the turn ends', () => {
    const message = 'The model is busy (529); trying again in 4 s.';
    let s = applyEvent(state(), {
      type: 'run.retrying',
      data: { attempt: 1, delayMs: 4000, status: 529, message, seq: 5, runId: 'run-1' },
    });
    expect(s.retrying).toEqual({ message, attempt: 1 });
    expect(s.activeRun!.status).toBe('running');
    s = applyEvent(s, {
      type: 'message.delta',
      data: { messageId: 'm1', blockIndex: 0, offset: 0, text: 'Hi', seq: null, runId: 'run-1' },
    });
    expect(s.retrying).toBeNull();
    s = applyEvent(s, { type: 'run.retrying', data: { attempt: 2, delayMs: 1000, status: 529, message, seq: 6, runId: 'run-1' } });
    const usage = { inputTokens: 0, outputTokens: 0 };
    s = applyEvent(s, {
      type: 'run.failed',
      data: { status: 'failed', stopReason: 'error', usage, error: { code: 'model_overloaded', message: 'x' }, seq: 7, runId: 'run-1' },
    });
    expect(s.retrying).toBeNull();
  });
});

describe('the page applying streamed thinking', () => {
  it('keeps which blocks of a streaming message are thinking, so they are shown folded', () => {
    const delta = (blockIndex: number, offset: number, text: string, kind?: 'thinking') => ({
      type: 'message.delta' as const,
      data: { messageId: 'm1', blockIndex, offset, text, ...(kind ? { kind } : {}), seq: null, runId: 'run-1' },
    });
    let s = applyEvent(state(), delta(0, 0, 'Weighing ', 'thinking'));
    s = applyEvent(s, delta(0, 9, 'it.', 'thinking'));
    s = applyEvent(s, delta(1, 0, 'The answer.'));
    expect(s.partials).toEqual([{ messageId: 'm1', runId: 'run-1', blocks: ['Weighing it.', 'The answer.'], thinking: [0] }]);
  });
});

describe('the page applying task events (MCP Tasks)', () => {
  it('shows the task once stored, then each live status on the card of that call', () => {
    const task = { status: 'working' as const, statusMessage: '0% done' };
    let s = applyEvent(state(), {
      type: 'tool_call.task',
      data: { toolCall: call({ status: 'executing', task }), seq: 5, runId: 'run-1' },
    });
    expect(s.toolCalls.tu_1!.task).toEqual(task);
    s = applyEvent(s, {
      type: 'tool_call.task_status',
      data: { toolCallId: call().id, status: 'working', statusMessage: '40% done', seq: null, runId: 'run-1' },
    });
    expect(s.toolCalls.tu_1).toMatchObject({ status: 'executing', task: { status: 'working', statusMessage: '40% done' } });
    // A status for a call the page does not show changes nothing.
    expect(
      applyEvent(s, {
        type: 'tool_call.task_status',
        data: { toolCallId: 'other', status: 'completed', statusMessage: null, seq: null, runId: 'run-1' },
      }),
    ).toEqual(s);
  });
});

describe('the page replaying a question asked before answers named their round', () => {
  const inputRequests = { name: { method: 'elicitation/create', params: { message: 'Your name?' } } };

  it('keeps the round the page loaded when the stored event carries none, so the answer can name it', () => {
    const loaded = { ...state(), toolCalls: { tu_1: call({ status: 'awaiting_input', inputRequests, inputRound: 3 }) } };
    const old: Partial<ToolCallView> = call({ status: 'awaiting_input', inputRequests });
    delete old.inputRound;
    const replayed = toolCallViewSchema.parse(old);
    expect(replayed.inputRound).toBeNull();
    const s = applyEvent(loaded, { type: 'tool_call.input_requested', data: { toolCall: replayed, seq: 5, runId: 'run-1' } });
    expect(s.toolCalls.tu_1).toMatchObject({ status: 'awaiting_input', inputRound: 3 });
  });

  it('takes a live round as it comes, and drops the round once the call no longer waits', () => {
    const loaded = { ...state(), toolCalls: { tu_1: call({ status: 'awaiting_input', inputRequests, inputRound: 3 }) } };
    let s = applyEvent(loaded, {
      type: 'tool_call.input_requested',
      data: { toolCall: call({ status: 'awaiting_input', inputRequests, inputRound: 5 }), seq: 5, runId: 'run-1' },
    });
    expect(s.toolCalls.tu_1!.inputRound).toBe(5);
    s = applyEvent(s, {
      type: 'tool_call.decided',
      data: { toolCall: call({ status: 'approved', inputRound: null }), seq: 6, runId: 'run-1' },
    });
    expect(s.toolCalls.tu_1!.inputRound).toBeNull();
  });
});
