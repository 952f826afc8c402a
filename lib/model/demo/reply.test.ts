import { describe, expect, it } from 'vitest';

import { instructionsSystemText } from '../instructions';
import { decideReply, lastUserText, limitToMaxTokens } from './reply';
import type { DemoRequest, RequestMessage } from './types';
import { splitWords } from './words';

// decideReply is pure (given an id generator), so its rules are tested directly.

const ids = (n: number) => `toolu_test_${n}`;

function request(messages: RequestMessage[], extra: Partial<DemoRequest> = {}): DemoRequest {
  return { model: 'demo', max_tokens: 1000, messages, tools: [], stream: true, ...extra };
}

describe('decideReply', () => {
  it("acknowledges the person's instructions the system text carries, quoting the first line of each kind", () => {
    const answer = (system?: string) => {
      const reply = decideReply(request([{ role: 'user', content: 'hello' }], { system }));
      return reply.blocks[0]!.type === 'text' ? reply.blocks[0]!.text : '';
    };
    const personal = instructionsSystemText('personal', '\nI am Ada, a botanist.\nUse metric units.');
    const conversation = instructionsSystemText('conversation', 'Answer in French.');
    expect(answer(['You are Switchboard.', personal, conversation].join('\n')).split('\n\n')[0]).toBe(
      'I received your instructions for every conversation, starting “I am Ada, a botanist.”, ' +
        'and for this conversation, starting “Answer in French.”.',
    );
    expect(answer(['You are Switchboard.', conversation].join('\n'))).toMatch(
      /^I received your instructions for this conversation, starting “Answer in French\.”\.\n\nThis is the offline demo model/,
    );
    // Without instructions (or with the app's prompt alone) the answer is as it always was.
    expect(answer('You are Switchboard.')).toMatch(/^This is the offline demo model/);
    expect(answer()).toMatch(/^This is the offline demo model/);
  });

  it('says which history it received when asked with [demo:history], and only then', () => {
    const answer = (messages: RequestMessage[]) => {
      const reply = decideReply(request(messages));
      return reply.blocks[0]!.type === 'text' ? reply.blocks[0]!.text : '';
    };
    const history: RequestMessage[] = [
      { role: 'user', content: 'First question about the garden and everything that grows in it' },
      { role: 'assistant', content: [{ type: 'text', text: 'An answer.' }] },
      { role: 'user', content: [{ type: 'text', text: 'Second one [demo:history]' }] },
    ];
    expect(answer(history).split('\n\n')[0]).toBe(
      'I received 2 messages from you: “First question about the garden and…”, “Second one”; and 1 answer of mine.',
    );
    expect(answer(history).split('\n\n')[1]).toMatch(/^This is the offline demo model/);
    // A message carrying only tool results is not one the person typed.
    expect(answer([{ role: 'user', content: '[demo:history]' }])).toMatch(/^I received 1 message from you: “”; and 0 answers of mine\./);
    expect(answer(history.slice(0, 1))).toMatch(/^This is the offline demo model/);
  });

  it('quotes tool results, cutting long ones and naming images, and never calls a tool', () => {
    const long = 'x'.repeat(400);
    const reply = decideReply(
      request([
        { role: 'user', content: 'go a__b' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'a__b', input: {} }] },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 't1',
              content: [
                { type: 'text', text: long },
                { type: 'image', source: {} },
              ],
            },
            { type: 'tool_result', tool_use_id: 'missing', content: [{ type: 'image', source: {} }], is_error: true },
            // Text naming a tool after results must not start another call.
            { type: 'text', text: 'now call c__d' },
          ],
        },
      ]),
      { newToolUseId: ids },
    );
    expect(reply.stopReason).toBe('end_turn');
    expect(reply.blocks).toHaveLength(1);
    const text = reply.blocks[0].type === 'text' ? reply.blocks[0].text : '';
    const [heading, first, second] = text.split('\n');
    expect(heading).toBe('Tool results:');
    expect(first).toBe(`- a__b returned: ${'x'.repeat(300)}…`);
    expect(second).toBe('- unknown tool (missing) failed: [image]');
  });

  it("quotes a fenced result without the host's fence", () => {
    const reply = decideReply(
      request([
        { role: 'user', content: 'go a__b' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'a__b', input: {} }] },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 't1',
              content: [{ type: 'text', text: '<tool_output server="Notes" tool="search">\n2 notes found\n</tool_output>' }],
            },
          ],
        },
      ]),
      { newToolUseId: ids },
    );
    const text = reply.blocks[0]?.type === 'text' ? reply.blocks[0].text : '';
    expect(text).toBe('Tool results:\n- a__b returned: 2 notes found');
  });

  it("does not name the tool twice when the host's error already names it", () => {
    const reply = decideReply(
      request([
        { role: 'user', content: 'go a__b and c__d' },
        {
          role: 'assistant',
          content: [
            { type: 'tool_use', id: 't1', name: 'a__b', input: {} },
            { type: 'tool_use', id: 't2', name: 'c__d', input: {} },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 't1', content: 'a__b timed out: no answer for 30 s.', is_error: true },
            { type: 'tool_result', tool_use_id: 't2', content: 'a__b is busy', is_error: true },
          ],
        },
      ]),
      { newToolUseId: ids },
    );
    const text = reply.blocks[0]?.type === 'text' ? reply.blocks[0].text : '';
    expect(text).toBe('Tool results:\n- a__b timed out: no answer for 30 s.\n- c__d failed: a__b is busy');
  });

  it('builds tool_use blocks with the given ids after an intro sentence', () => {
    const reply = decideReply(request([{ role: 'user', content: 'a__b and c__d and e__f' }]), { newToolUseId: ids });
    expect(reply.stopReason).toBe('tool_use');
    expect(reply.blocks).toEqual([
      { type: 'text', text: "I'll call a__b, c__d and e__f." },
      { type: 'tool_use', id: 'toolu_test_1', name: 'a__b', input: {} },
      { type: 'tool_use', id: 'toolu_test_2', name: 'c__d', input: {} },
      { type: 'tool_use', id: 'toolu_test_3', name: 'e__f', input: {} },
    ]);
  });

  it('reads the text blocks of the last user message', () => {
    const messages: RequestMessage[] = [
      { role: 'user', content: 'old a__b' },
      { role: 'assistant', content: 'ok' },
      { role: 'user', content: [{ type: 'text', text: 'hello' }, { type: 'image' }, { type: 'text', text: 'world' }] },
    ];
    expect(lastUserText(messages)).toBe('hello\nworld');
    const reply = decideReply(request(messages));
    expect(reply.stopReason).toBe('end_turn'); // the older a__b mention does not count
  });

  it('marks [demo:fail-midstream] replies', () => {
    expect(decideReply(request([{ role: 'user', content: 'x [demo:fail-midstream]' }])).failMidstream).toBe(true);
    expect(decideReply(request([{ role: 'user', content: 'x' }])).failMidstream).toBe(false);
  });

  it('makes unique random ids by default', () => {
    const a = decideReply(request([{ role: 'user', content: 'a__b' }]));
    const b = decideReply(request([{ role: 'user', content: 'a__b' }]));
    const idOf = (r: typeof a) => (r.blocks[1].type === 'tool_use' ? r.blocks[1].id : '');
    expect(idOf(a)).toMatch(/^toolu_demo_1_[a-z0-9]+$/);
    expect(idOf(a)).not.toBe(idOf(b));
  });
});

describe('limitToMaxTokens', () => {
  it('cuts the text at the budget and drops later tool calls', () => {
    const reply = limitToMaxTokens(
      {
        blocks: [
          { type: 'text', text: "I'll call a__b." },
          { type: 'tool_use', id: 't', name: 'a__b', input: {} },
        ],
        stopReason: 'tool_use',
        failMidstream: false,
      },
      2,
    );
    expect(reply).toEqual({ blocks: [{ type: 'text', text: "I'll call" }], stopReason: 'max_tokens', failMidstream: false });
  });

  it('keeps a reply that fits exactly', () => {
    const original = { blocks: [{ type: 'text' as const, text: 'one two' }], stopReason: 'end_turn' as const, failMidstream: false };
    expect(limitToMaxTokens(original, 2)).toEqual(original);
  });
});

describe('splitWords', () => {
  it('splits into words that join back to the exact text', () => {
    const text = '  leading\nand  trailing  ';
    expect(splitWords(text)).toEqual(['  leading\n', 'and  ', 'trailing  ']);
    expect(splitWords(text).join('')).toBe(text);
  });
});

describe('code in the message', () => {
  it('gives fenced code blocks back as code blocks, so a page can highlight them', () => {
    const text = 'Look at this:\n```ts\nconst x: number = 1;\n```\nand\n```py\nprint(x)\n```';
    const reply = decideReply(request([{ role: 'user', content: text }]));
    const answer = (reply.blocks[0] as { text: string }).text;
    expect(answer).toContain('You wrote 2 code blocks; here it is back:');
    expect(answer).toContain('\n```ts\nconst x: number = 1;\n```\n');
    expect(answer).toContain('\n```py\nprint(x)\n```');
    expect(answer).not.toContain('You wrote: "');
  });
});

describe('decideReply: an answer cut at the length limit, and its continuation', () => {
  const question = { role: 'user', content: '[demo:cut-at=6] tell me what you are' } as const;
  const textOf = (reply: ReturnType<typeof decideReply>) => (reply.blocks[0] as { text: string }).text;
  const cutText = () => textOf(decideReply(request([question])));

  it('stops a new answer after N words with max_tokens when asked', () => {
    const cut = decideReply(request([question]));
    expect(cut.stopReason).toBe('max_tokens');
    expect(cut.blocks).toEqual([{ type: 'text', text: 'This is the offline demo model:' }]);
    // The request's own limit still wins when it is lower.
    expect(decideReply(request([question], { max_tokens: 3 })).blocks).toEqual([{ type: 'text', text: 'This is the' }]);
  });

  it('goes on from a prefill (the history ends with the cut answer) with the rest, and says when nothing is left', () => {
    const text = cutText();
    const next = decideReply(request([question, { role: 'assistant', content: [{ type: 'text', text }] }]));
    expect(next.stopReason).toBe('end_turn');
    const rest = textOf(next);
    expect(rest.startsWith(' no real AI is answering')).toBe(true);
    expect(rest).toContain('You wrote: "[demo:cut-at=6] tell me what you are"');
    // The whole answer written: nothing more to add.
    const done = decideReply(request([question, { role: 'assistant', content: text + rest }]));
    expect(done.blocks).toEqual([{ type: 'text', text: ' (That was the whole answer.)' }]);
  });

  it('goes on after the continue prompt too', () => {
    const text = cutText();
    const next = decideReply(
      request([
        question,
        { role: 'assistant', content: [{ type: 'text', text }] },
        { role: 'user', content: 'Continue from where you stopped.' },
      ]),
    );
    expect(next.stopReason).toBe('end_turn');
    expect(textOf(next).startsWith('no real AI is answering')).toBe(true);
  });
});
