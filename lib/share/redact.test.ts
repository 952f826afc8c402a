import { describe, expect, it } from 'vitest';

import type { MessageRow } from '@/db/queries/messages';

import { toSharedMessage } from './redact';

const row = (over: Partial<MessageRow>): MessageRow => ({
  id: 'm1',
  conversationId: 'c1',
  seq: 1,
  role: 'user',
  content: [{ type: 'text', text: 'count it' }],
  runId: null,
  stopReason: null,
  origin: null,
  parentId: null,
  createdAt: new Date('2026-12-06T12:00:00Z'),
  ...over,
});

describe('a shared page’s messages', () => {
  it('leave out what interactive views told the model (theirs, not the person’s words; a share shows no view)', () => {
    const views = row({
      content: [{ type: 'text', text: '<tool_output server="Apps" tool="rows (interactive view)">row 3</tool_output>' }],
      origin: {
        v: 1,
        kind: 'view_context',
        views: [{ toolCallId: 't1', serverId: 's1', serverName: 'Apps', tool: 'rows', at: '2026-12-06T12:00:00.000Z' }],
      },
    });
    expect(toSharedMessage(views, null)).toBeNull();
    expect(toSharedMessage(row({}), null)).toMatchObject({ role: 'user', content: [{ type: 'text', text: 'count it' }] });
  });
});
