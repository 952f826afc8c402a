import { describe, expect, it } from 'vitest';

import type { ToolCallRow } from '@/db/queries/tool-calls';

import { isAuditable, toolCallEntry } from './tool-call-entry';

const base: ToolCallRow = {
  id: 'c1',
  runId: 'r1',
  conversationId: 'conv1',
  userId: 'u1',
  step: 1,
  position: 0,
  toolUseId: 'tu1',
  modelName: 'notes__search',
  serverId: 'builtin-notes',
  serverName: 'Notes',
  tool: 'search',
  input: { query: 'x' },
  argsHash: 'h1',
  status: 'succeeded',
  verdict: {
    v: 1,
    verdict: 'auto',
    reason: 'A trusted server marks this tool as read-only.',
    warnings: [],
    grantId: null,
    constraint: null,
  },
  trust: 'trusted',
  contentTrusted: true,
  annotations: { readOnlyHint: true },
  inputSchema: null,
  outputSchema: null,
  decision: null,
  result: { type: 'tool_result', tool_use_id: 'tu1', content: [{ type: 'text', text: 'found' }] },
  isError: false,
  resultChars: null,
  resultTruncated: false,
  attempts: 1,
  inputRequests: null,
  inputResponses: null,
  signIn: null,
  requestState: null,
  foundTools: null,
  viewUri: null,
  taskSupport: null,
  task: null,
  askedByCallId: null,
  viewContext: null,
  version: 3,
  createdAt: new Date('2026-12-01T05:00:00Z'),
  startedAt: new Date('2026-12-01T05:00:01Z'),
  endedAt: new Date('2026-12-01T05:00:01.250Z'),
};

const entry = (row: Partial<ToolCallRow>) => {
  const call = { ...base, ...row };
  if (!isAuditable(call)) throw new Error('not at an end state');
  return toolCallEntry(call, { conversationTitle: 'T', proposedInput: { query: 'proposed' } }).content;
};

describe('toolCallEntry', () => {
  it('calls a first-party read-only tool that ran without a stored grant `default`, and one under a grant `auto`', () => {
    expect(entry({})).toMatchObject({ verdict: { kind: 'default' }, timing: { durationMs: 250 } });
    expect(entry({ verdict: { ...base.verdict!, grantId: 'g1' } })).toMatchObject({ verdict: { kind: 'auto' }, grant: { id: 'g1' } });
    expect(entry({ serverId: 'remote-uuid' })).toMatchObject({ verdict: { kind: 'auto' } });
  });

  it('is only written for calls at an end state', () => {
    expect(isAuditable({ ...base, status: 'executing' })).toBe(false);
    expect(isAuditable({ ...base, status: 'pending_approval' })).toBe(false);
    expect(isAuditable({ ...base, status: 'unknown' })).toBe(true);
  });

  it('takes the proposed arguments from the model only when the person edited them', () => {
    expect(entry({}).arguments).toMatchObject({ proposed: { query: 'x' }, edited: false });
    const edited = entry({ decision: { v: 1, kind: 'allow_once', by: 'u1', at: 'now', editedFrom: 'h0' }, argsHash: 'h1' });
    expect(edited.arguments).toEqual({
      proposed: { query: 'proposed' },
      proposedHash: 'h0',
      executed: { query: 'x' },
      executedHash: 'h1',
      edited: true,
    });
    expect(edited.verdict).toMatchObject({ kind: 'allowed', by: 'u1', decision: 'allow_once' });
  });
});
