import { describe, expect, it } from 'vitest';

import { sampleToolCallView } from '@/test/sample-tool-call';

import type { ConversationView, MessageView } from '../types';
import type { ChatState } from './chat-state';
import { synced, withEarlierPage } from './earlier-pages';

const msg = (id: string, over: Partial<MessageView> = {}): MessageView => ({
  id,
  seq: 0,
  role: 'user',
  content: [{ type: 'text', text: id }],
  runId: null,
  stopReason: null,
  createdAt: '2026-12-06T00:00:00.000Z',
  ...over,
});
const asking = (id: string, toolUseId: string) =>
  msg(id, { role: 'assistant', content: [{ type: 'tool_use', id: toolUseId, name: 'notes__search', input: {} }] });

const state = (messages: MessageView[], earlier: number, toolUseIds: string[] = []): ChatState => ({
  messages,
  earlier,
  partials: [],
  toolCalls: Object.fromEntries(toolUseIds.map((t) => [t, sampleToolCallView({ toolUseId: t })])),
  activeRun: null,
  lastRun: null,
  lastSeq: 10,
  progress: {},
  retrying: null,
});

const view = (messages: MessageView[], earlier: number, toolUseIds: string[] = []): ConversationView =>
  ({
    messages,
    earlier,
    toolCalls: toolUseIds.map((t) => sampleToolCallView({ toolUseId: t })),
    activeRun: null,
    lastRun: null,
    lastSeq: 12,
  }) as Partial<ConversationView> as ConversationView;

const ids = (s: ChatState) => s.messages.map((m) => m.id);

describe('the page putting an earlier page in front', () => {
  it('puts the page before its first message, with its calls and what comes before it', () => {
    const s = withEarlierPage(state([msg('c'), msg('d')], 2), 'c', {
      messages: [msg('a'), asking('b', 'tu_b')],
      earlier: 0,
      toolCalls: [sampleToolCallView({ toolUseId: 'tu_b' })],
    });
    expect(ids(s)).toEqual(['a', 'b', 'c', 'd']);
    expect(s.earlier).toBe(0);
    expect(Object.keys(s.toolCalls)).toEqual(['tu_b']);
  });

  it('drops an answer that came after the page moved on (its first message is no longer the one asked before)', () => {
    const before = state([msg('x'), msg('y')], 5);
    expect(withEarlierPage(before, 'c', { messages: [msg('a')], earlier: 0, toolCalls: [] })).toBe(before);
  });
});

describe('the page reading the conversation again', () => {
  it('keeps the earlier messages it has before the new end, and their calls', () => {
    const had = state([msg('a'), asking('b', 'tu_b'), msg('c'), msg('d')], 0, ['tu_b']);
    const s = synced(had, view([msg('c'), msg('d'), msg('e')], 2));
    expect(ids(s)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(s.earlier).toBe(0);
    expect(Object.keys(s.toolCalls)).toEqual(['tu_b']);
    expect(s.lastSeq).toBe(12);
  });

  it('takes a new end that starts at no message it has as it is (another branch)', () => {
    const had = state([msg('a'), asking('b', 'tu_b'), msg('c')], 0, ['tu_b']);
    const s = synced(had, view([msg('p'), asking('q', 'tu_q')], 7, ['tu_q']));
    expect(ids(s)).toEqual(['p', 'q']);
    expect(s.earlier).toBe(7);
    // The other branch's calls go with its messages.
    expect(Object.keys(s.toolCalls)).toEqual(['tu_q']);
  });

  it('an edit of an early message: the new end starts at the first message, nothing is kept', () => {
    const had = state([msg('a'), msg('b')], 3);
    const s = synced(had, view([msg('a2')], 0));
    expect(ids(s)).toEqual(['a2']);
    expect(s.earlier).toBe(0);
  });
});
