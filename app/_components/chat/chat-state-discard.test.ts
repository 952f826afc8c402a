import { describe, expect, it } from 'vitest';

import { applyEvent, type ChatEvent, type ChatState } from './chat-state';

const state = (): ChatState => ({
  messages: [],
  earlier: 0,
  partials: [],
  toolCalls: {},
  activeRun: { id: 'run-1', status: 'running', stopReason: null, error: null, afterSeq: 0 },
  lastRun: null,
  lastSeq: 4,
  progress: {},
  retrying: null,
});

const delta = (messageId: string, offset: number, text: string, seq: number | null, runId = 'run-1'): ChatEvent => ({
  type: 'message.delta',
  data: { messageId, blockIndex: 0, offset, text, seq, runId },
});
const discarded = (messageId: string, seq: number): ChatEvent => ({
  type: 'message.discarded',
  data: { messageId, reason: 'taken_over', seq, runId: 'run-1' },
});

const shown = (s: ChatState) => s.partials.map((p) => p.blocks.join(''));

describe('the page applying a take-over (message.discarded)', () => {
  it('drops the dead instance’s streamed text at once, before the redone step streams', () => {
    let s = applyEvent(state(), delta('m-dead', 0, 'Half an ', 5));
    s = applyEvent(s, delta('m-dead', 8, 'answer', null));
    expect(shown(s)).toEqual(['Half an answer']);
    s = applyEvent(s, discarded('m-dead', 6));
    expect(shown(s)).toEqual([]);
    expect(s.lastSeq).toBe(6);
    expect(s.activeRun!.status).toBe('running');
    s = applyEvent(s, delta('m-new', 0, 'The whole answer.', 7));
    expect(shown(s)).toEqual(['The whole answer.']);
  });

  it('keeps the text of other messages streaming in other runs, and of a message not named', () => {
    let s = applyEvent(state(), delta('m-other', 0, 'elsewhere', 5, 'run-2'));
    s = applyEvent(s, delta('m-dead', 0, 'dead text', 6));
    s = applyEvent(s, discarded('m-unrelated', 7));
    expect(shown(s).sort()).toEqual(['dead text', 'elsewhere']);
    s = applyEvent(s, discarded('m-dead', 8));
    expect(shown(s)).toEqual(['elsewhere']);
  });

  it('shows no text twice when the replay brings the discard after the live text', () => {
    // Live text of the dead instance, then (after a reconnect) the replay: the same text, its discard, the new answer.
    let s = applyEvent(state(), delta('m-dead', 0, 'dead ', null));
    for (const e of [delta('m-dead', 0, 'dead text', 5), discarded('m-dead', 6), delta('m-new', 0, 'fresh', 7)]) s = applyEvent(s, e);
    expect(shown(s)).toEqual(['fresh']);
  });
});
