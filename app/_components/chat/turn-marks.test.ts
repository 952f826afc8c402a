import { describe, expect, it } from 'vitest';

import { withTurnMarks, type MessageView } from '@/lib/chat/views';

import { applyEvent, type ChatState } from './chat-state';
import { turnUsageFigures } from './turn-usage';

const message = (seq: number, role: 'user' | 'assistant', runId: string): MessageView => ({
  id: `m${seq}`,
  seq,
  role,
  content: [{ type: 'text', text: `m${seq}` }],
  runId,
  stopReason: null,
  createdAt: new Date(0).toISOString(),
});
const messages = [message(1, 'user', 'r1'), message(2, 'assistant', 'r1'), message(3, 'user', 'r2'), message(4, 'assistant', 'r2')];
const usage = { inputTokens: 134, outputTokens: 56, cacheCreationInputTokens: 0, cacheReadInputTokens: 1100 };

describe('turn marks: tokens under each turn, "earlier messages summarized" where a summary ends', () => {
  it('the conversation view puts each ended turn’s tokens on its last message and each summary where it ends', () => {
    const marked = withTurnMarks(
      messages,
      [{ throughSeq: 2, text: 'They said hello.' }],
      [
        { id: 'r1', usage },
        { id: 'r2', usage: null },
      ],
    );
    expect(marked.map((m) => Boolean(m.usage))).toEqual([false, true, false, false]);
    expect(marked[1]!.usage).toEqual(usage);
    expect(marked.map((m) => m.summary?.text ?? null)).toEqual([null, 'They said hello.', null, null]);
    // The messages themselves are all still there, unchanged.
    expect(marked.map((m) => m.content)).toEqual(messages.map((m) => m.content));
    // A row from before prompt caching has no cache figures: zero.
    expect(withTurnMarks(messages, [], [{ id: 'r2', usage: { inputTokens: 5, outputTokens: 6 } }])[3]!.usage).toEqual({
      inputTokens: 5,
      outputTokens: 6,
      cacheCreationInputTokens: 0,
      cacheReadInputTokens: 0,
    });
  });

  it('a turn answered again shows no tokens on the question left behind; the new answer shows its own', () => {
    // m1 (r1) asked, its answer replaced by r3's (regenerate): the path is m1, then r3's answer.
    const regenerated = [message(1, 'user', 'r1'), message(5, 'assistant', 'r3')];
    const marked = withTurnMarks(
      regenerated,
      [],
      [
        { id: 'r1', usage },
        { id: 'r3', usage },
      ],
    );
    expect(marked.map((m) => Boolean(m.usage))).toEqual([false, true]);
    // A turn stopped after a tool result, followed by the next question: its tokens stay on its last message.
    const stopped = [message(1, 'user', 'r1'), message(2, 'assistant', 'r1'), message(3, 'user', 'r1'), message(4, 'user', 'r2')];
    expect(withTurnMarks(stopped, [], [{ id: 'r1', usage }]).map((m) => Boolean(m.usage))).toEqual([false, false, true, false]);
  });

  it('the figures read "1,234 in · 56 out · 1,100 cached" (in counts the cached part too), "cached" only when some was', () => {
    expect(turnUsageFigures(usage).line).toBe('1,234 in · 56 out · 1,100 cached');
    expect(turnUsageFigures({ ...usage, cacheReadInputTokens: 0, cacheCreationInputTokens: 900 }).line).toBe('1,034 in · 56 out');
    expect(turnUsageFigures(usage).title).toContain('1,100 of them from the prompt cache');
  });

  it('the page marks a summary and a turn’s tokens as their events arrive', () => {
    const s: ChatState = {
      messages,
      earlier: 0,
      partials: [],
      toolCalls: {},
      activeRun: { id: 'r2', status: 'running', stopReason: null, error: null, afterSeq: 0 },
      lastRun: null,
      lastSeq: 4,
      progress: {},
      retrying: null,
    };
    const summarized = applyEvent(s, {
      type: 'history.summarized',
      data: { summaryId: 's1', throughSeq: 2, throughMessageId: 'm2', text: 'They said hello.', seq: 5, runId: 'r2' },
    });
    expect(summarized.messages[1]!.summary).toEqual({ text: 'They said hello.' });
    const ended = applyEvent(summarized, {
      type: 'run.completed',
      data: { status: 'completed', stopReason: 'end_turn', usage, seq: 6, runId: 'r2' },
    });
    expect(ended.messages[3]!.usage).toEqual(usage);
    expect(ended.messages[1]!.usage).toBeUndefined();
  });
});
