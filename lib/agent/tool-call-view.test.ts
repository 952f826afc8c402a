import { describe, expect, it } from 'vitest';

import type { ToolCallRow } from '@/db/queries/tool-calls';
import { toToolResult } from '@/lib/mcp/to-tool-result';

import { toToolCallView } from './tool-call-view';

const mapped = toToolResult({
  toolUseId: 'toolu_1',
  serverName: 'Notes',
  tool: 'search',
  outcome: { content: [{ type: 'text', text: 'hit' }] },
});

// Rows are read without full_text now; this one carries it anyway, to show the view drops it.
const row: ToolCallRow & { fullText: string } = {
  id: 'c0ffee00-0000-4000-8000-000000000001',
  runId: 'c0ffee00-0000-4000-8000-000000000002',
  conversationId: 'c0ffee00-0000-4000-8000-000000000003',
  userId: 'c0ffee00-0000-4000-8000-000000000004',
  step: 1,
  position: 0,
  toolUseId: 'toolu_1',
  modelName: 'notes__search',
  serverId: 'builtin-notes',
  serverName: 'Notes',
  tool: 'search',
  input: { query: 'plans' },
  argsHash: 'a'.repeat(64),
  status: 'succeeded',
  verdict: {
    v: 1,
    verdict: 'ask',
    reason: 'Tools of untrusted servers need approval.',
    warnings: [],
    grantId: 'grant-secret',
    constraint: { enum: [1] },
  },
  trust: 'untrusted',
  contentTrusted: true,
  annotations: { readOnlyHint: true },
  inputSchema: { type: 'object' },
  outputSchema: null,
  decision: { v: 1, kind: 'allow_once', by: 'c0ffee00-0000-4000-8000-000000000004', at: '2026-11-30T10:00:00.000Z' },
  result: mapped.block,
  isError: false,
  fullText: 'the whole stored text',
  resultChars: 3,
  resultTruncated: false,
  attempts: 1,
  inputRequests: null,
  inputResponses: null,
  signIn: null,
  requestState: 'opaque-server-state',
  foundTools: null,
  viewUri: null,
  taskSupport: null,
  task: null,
  askedByCallId: null,
  viewContext: null,
  version: 3,
  createdAt: new Date('2026-11-30T10:00:00Z'),
  startedAt: new Date('2026-11-30T10:00:01Z'),
  endedAt: new Date('2026-11-30T10:00:02Z'),
};

describe('toToolCallView: the browser gets a view made for it', () => {
  it('carries what the card shows, with the result as display parts', () => {
    const view = toToolCallView(row);
    expect(view).toMatchObject({
      id: row.id,
      status: 'succeeded',
      server: 'Notes',
      tool: 'search',
      input: { query: 'plans' },
      argsHash: row.argsHash,
      hints: { annotated: true, readOnly: true, destructive: false, openWorld: false },
      verdict: { verdict: 'ask', reason: 'Tools of untrusted servers need approval.', warnings: [] },
      decision: { kind: 'allow_once', reason: null, edited: false },
      result: { isError: false, parts: [{ kind: 'output', text: 'hit' }], chars: 3, truncated: false },
    });
  });

  it('never sends grant ids, constraints, who decided, server state, the model wrapper or the stored full text', () => {
    const json = JSON.stringify(toToolCallView(row));
    for (const secret of [
      'grant-secret',
      '"enum"',
      row.userId,
      'opaque-server-state',
      'the whole stored text',
      '<tool_output',
      'builtin-notes',
    ]) {
      expect(json).not.toContain(secret);
    }
  });

  it('marks a tool without hints as not annotated', () => {
    expect(toToolCallView({ ...row, annotations: {} }).hints.annotated).toBe(false);
  });
});
