import { describe, expect, it } from 'vitest';

import { EVENT_PAYLOADS, parseEventPayload, toBusEvent } from './event-payloads';
import { RUN_EVENT_TYPES } from './events';

/** A tool_call event as the release before ToolCallView stored it (version 0), taken from its log. */
const V0_TOOL_CALL_EVENT = {
  toolCall: {
    id: 'c0ffee00-0000-4000-8000-000000000001',
    runId: 'c0ffee00-0000-4000-8000-000000000002',
    toolUseId: 'toolu_1',
    status: 'succeeded',
    server: 'Notes',
    serverId: 'builtin-notes',
    tool: 'search',
    modelName: 'notes__search',
    input: { query: 'plans' },
    argsHash: 'a'.repeat(64),
    trust: 'trusted',
    annotations: { readOnlyHint: true, destructiveHint: false },
    policy: { decision: 'auto', reason: 'A trusted server marks this tool as read-only.', warnings: [] },
    decision: { kind: 'auto', at: '2026-11-01T10:00:00.000Z' },
    result: {
      type: 'tool_result',
      tool_use_id: 'toolu_1',
      content: [{ type: 'text', text: '<tool_output server="Notes" tool="search">\n{"hits":[]}\n</tool_output>' }],
    },
    isError: false,
    inputRequests: null,
    startedAt: '2026-11-01T10:00:01.000Z',
    endedAt: '2026-11-01T10:00:02.000Z',
  },
};

describe('event payloads', () => {
  it('has a schema for every stored event name', () => {
    expect(Object.keys(EVENT_PAYLOADS).sort()).toEqual([...RUN_EVENT_TYPES].sort());
  });

  it('reads a version-0 tool call event in the view the browser gets today', () => {
    const parsed = parseEventPayload('tool_call.completed', V0_TOOL_CALL_EVENT, 'c#7');
    expect(parsed).toEqual({
      toolCall: {
        id: V0_TOOL_CALL_EVENT.toolCall.id,
        runId: V0_TOOL_CALL_EVENT.toolCall.runId,
        toolUseId: 'toolu_1',
        status: 'succeeded',
        server: 'Notes',
        tool: 'search',
        modelName: 'notes__search',
        input: { query: 'plans' },
        argsHash: 'a'.repeat(64),
        trust: 'trusted',
        hints: { annotated: true, readOnly: true, destructive: false, openWorld: false },
        verdict: { verdict: 'auto', reason: 'A trusted server marks this tool as read-only.', warnings: [] },
        decision: null,
        result: { isError: false, parts: [{ kind: 'output', text: '{"hits":[]}' }], chars: 11, truncated: false },
        inputRequests: null,
        inputRound: null,
        signIn: null,
        // Not known for version 0: it stays off the turn's timeline.
        step: null,
        proposedAt: null,
        waitedFor: null,
        allowForSession: { offered: false, why: null },
        hasView: false,
        askedByView: false,
        viewOf: null,
        viewsOff: false,
        viewContext: null,
        viewCopy: false,
        task: null,
        startedAt: '2026-11-01T10:00:01.000Z',
        endedAt: '2026-11-01T10:00:02.000Z',
      },
    });
  });

  it('refuses a known event whose data fits no version, naming the event', () => {
    expect(() => parseEventPayload('run.awaiting_approval', { status: 'nope' }, 'c#9')).toThrow(/c#9 \(run\.awaiting_approval\)/);
  });

  it('passes an event a newer release wrote through as stored', () => {
    const row = { conversationId: 'c', seq: 3, runId: null, type: 'run.thinking', data: { x: 1 }, createdAt: new Date() };
    expect(parseEventPayload('run.thinking', { x: 1 }, 'c#3')).toBeNull();
    expect(toBusEvent(row)).toEqual({ conversationId: 'c', seq: 3, runId: null, type: 'run.thinking', data: { x: 1 } });
  });
});
