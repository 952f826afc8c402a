import { describe, expect, it } from 'vitest';

import { decideReply } from './reply';
import { SEARCH_TOOLS_NAME } from './tool-search';
import type { DemoRequest, OfferedTool, RequestMessage } from './types';

const ids = (n: number) => `toolu_test_${n}`;
const search: OfferedTool = { name: SEARCH_TOOLS_NAME, input_schema: { type: 'object', properties: { query: { type: 'string' } } } };
const reminder: OfferedTool = {
  name: 'notes__create_reminder',
  input_schema: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] },
};
const echo: OfferedTool = { name: 'fx__echo', input_schema: { type: 'object', properties: {} } };

function request(messages: RequestMessage[], tools: OfferedTool[]): DemoRequest {
  return { model: 'demo', max_tokens: 1000, messages, tools, stream: true };
}

const ask: RequestMessage = { role: 'user', content: 'call notes__create_reminder {"title": "Dentist"}' };
const searched: RequestMessage = {
  role: 'assistant',
  content: [{ type: 'tool_use', id: 's1', name: SEARCH_TOOLS_NAME, input: { query: 'notes__create_reminder' } }],
};
const searchResult: RequestMessage = {
  role: 'user',
  content: [{ type: 'tool_result', tool_use_id: 's1', content: [{ type: 'text', text: 'Found 1 enabled tool…' }] }],
};

describe('the demo model with a tool search', () => {
  it('searches for a named tool it was not offered, and calls nothing else yet', () => {
    const reply = decideReply(
      request([{ role: 'user', content: 'use fx__echo and call notes__create_reminder {"title": "Dentist"}' }], [search, echo]),
      {
        newToolUseId: ids,
      },
    );
    expect(reply.stopReason).toBe('tool_use');
    expect(reply.blocks.filter((b) => b.type === 'tool_use')).toEqual([
      { type: 'tool_use', id: 'toolu_test_1', name: SEARCH_TOOLS_NAME, input: { query: 'notes__create_reminder' } },
    ]);
  });

  it('calls what the search made available on its next step, with the arguments the person gave', () => {
    const reply = decideReply(request([ask, searched, searchResult], [search, reminder]), { newToolUseId: ids });
    expect(reply.stopReason).toBe('tool_use');
    expect(reply.blocks.filter((b) => b.type === 'tool_use')).toEqual([
      { type: 'tool_use', id: 'toolu_test_1', name: 'notes__create_reminder', input: { title: 'Dentist' } },
    ]);
  });

  it('quotes the search when it did not make the tool available, and stops', () => {
    const reply = decideReply(request([ask, searched, searchResult], [search, echo]), { newToolUseId: ids });
    expect(reply.stopReason).toBe('end_turn');
    expect(reply.blocks).toEqual([{ type: 'text', text: `Tool results:\n- ${SEARCH_TOOLS_NAME} returned: Found 1 enabled tool…` }]);
  });

  it('never calls a tool after results of anything but searches (so the loop ends)', () => {
    const called: RequestMessage = {
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'c1', name: 'notes__create_reminder', input: {} }],
    };
    const result: RequestMessage = { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c1', content: 'ok' }] };
    const reply = decideReply(request([ask, searched, searchResult, called, result], [search, reminder]), { newToolUseId: ids });
    expect(reply.stopReason).toBe('end_turn');
  });

  it('calls a named tool directly when no search tool is offered, or when it is offered already', () => {
    const without = decideReply(request([ask], [echo]), { newToolUseId: ids });
    expect(without.blocks.filter((b) => b.type === 'tool_use').map((b) => b.type === 'tool_use' && b.name)).toEqual([
      'notes__create_reminder',
    ]);
    const offered = decideReply(request([ask], [search, reminder]), { newToolUseId: ids });
    expect(offered.blocks.filter((b) => b.type === 'tool_use').map((b) => b.type === 'tool_use' && b.name)).toEqual([
      'notes__create_reminder',
    ]);
  });

  it('says that more tools can be named when a search tool is offered', () => {
    const reply = decideReply(request([{ role: 'user', content: 'hello' }], [search, echo]), { newToolUseId: ids });
    expect(reply.blocks[0]).toMatchObject({
      type: 'text',
      text: expect.stringContaining('name any of them and I will search for it first'),
    });
    const plain = decideReply(request([{ role: 'user', content: 'hello' }], [echo]), { newToolUseId: ids });
    expect(JSON.stringify(plain.blocks)).not.toContain('search for it first');
  });

  it('does not search again after the person asked for a search themselves', () => {
    const own: RequestMessage = { role: 'user', content: `call ${SEARCH_TOOLS_NAME} {"query": "reminder"}` };
    const reply = decideReply(request([own, searched, searchResult], [search, reminder]), { newToolUseId: ids });
    expect(reply.stopReason).toBe('end_turn');
  });
});
