import type Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { setConversationInstructions } from '@/db/queries/conversations';
import { setUserInstructions } from '@/db/queries/users';
import { openTestDb, TEST_DATABASES } from '@/test/db';
import { userAndConversation } from '@/test/engine-harness';
import { text, toolEngine, toolUse } from '@/test/tool-harness';

import { countCacheBreakpoints, MAX_CACHE_BREAKPOINTS } from './context/cache-breakpoints';
import { DEFAULT_SYSTEM_PROMPT } from './deps';
import { startRun } from './engine';
import { stepSystem } from './step-system';

const EPHEMERAL = { type: 'ephemeral' };
const PERSONAL_BLOCK = (t: string) =>
  'The person you are talking with gave these instructions for every conversation (how to answer, who they are):\n' +
  `<personal_instructions>\n${t}\n</personal_instructions>`;
const CONVERSATION_BLOCK = (t: string) =>
  'They gave these instructions for this conversation; where they differ from their instructions for every conversation, these win:\n' +
  `<conversation_instructions>\n${t}\n</conversation_instructions>`;

describe('the system text of a step', () => {
  it('is the prompt alone without instructions, and the prompt then each kind in its own block, the last one cached, with them', () => {
    expect(stepSystem('Be helpful.', null)).toBe('Be helpful.');
    expect(stepSystem('Be helpful.', { personal: null, conversation: null })).toBe('Be helpful.');
    expect(stepSystem('Be helpful.', { personal: 'I am Ada.', conversation: 'Answer in French.' })).toEqual([
      { type: 'text', text: 'Be helpful.' },
      { type: 'text', text: PERSONAL_BLOCK('I am Ada.') },
      { type: 'text', text: CONVERSATION_BLOCK('Answer in French.'), cache_control: EPHEMERAL },
    ]);
    expect(stepSystem('Be helpful.', { personal: null, conversation: 'Answer in French.' })).toEqual([
      { type: 'text', text: 'Be helpful.' },
      { type: 'text', text: CONVERSATION_BLOCK('Answer in French.'), cache_control: EPHEMERAL },
    ]);
    expect(stepSystem('Be helpful.', { personal: 'I am Ada.', conversation: null })).toEqual([
      { type: 'text', text: 'Be helpful.' },
      { type: 'text', text: PERSONAL_BLOCK('I am Ada.'), cache_control: EPHEMERAL },
    ]);
  });
});

/** Where a request's breakpoints are: the system's blocks, tools by name, messages as `index.block`. */
function marks(body: { system?: unknown; tools?: Anthropic.Tool[]; messages: Anthropic.MessageParam[] }) {
  const system = Array.isArray(body.system)
    ? (body.system as Anthropic.TextBlockParam[]).flatMap((b, i) => (b.cache_control ? [i] : []))
    : [];
  const tools = (body.tools ?? []).flatMap((t) => (t.cache_control ? [t.name] : []));
  const messages = body.messages.flatMap((m, i) =>
    typeof m.content === 'string' ? [] : m.content.flatMap((b, j) => ('cache_control' in b && b.cache_control ? [`${i}.${j}`] : [])),
  );
  return { system, tools, messages };
}

for (const { kind, available } of TEST_DATABASES) {
  describe.skipIf(!available)(`the person's instructions reach the model on ${kind}`, () => {
    let h: DbHandle;
    beforeAll(async () => {
      h = await openTestDb(kind);
    });
    afterAll(async () => h?.close());

    it('as system blocks inside the cached prefix of every step, within four breakpoints; edits apply from the next turn', async () => {
      const env = await toolEngine(h, {
        script: [
          { blocks: [text('Echoing.'), toolUse('tu_i', 'fx__echo', { message: 'hi' })] },
          { blocks: [text('It said hi.')] },
          { blocks: [text('Plain again.')] },
        ],
      });
      const { user, conversation } = await userAndConversation(h);
      await setUserInstructions(h.db, user.id, 'I am Ada, a botanist.\nUse metric units.');
      await setConversationInstructions(h.db, user.id, conversation.id, 'Answer in French.');

      await startRun(env.deps, { conversationId: conversation.id, userId: user.id, sessionId: null, text: 'echo hi' });
      await env.deps.idle();
      const expected = [
        { type: 'text', text: DEFAULT_SYSTEM_PROMPT },
        { type: 'text', text: PERSONAL_BLOCK('I am Ada, a botanist.\nUse metric units.') },
        { type: 'text', text: CONVERSATION_BLOCK('Answer in French.'), cache_control: EPHEMERAL },
      ];
      const [first, second] = env.model.requests.map((r) => r.body);
      // Both steps of the tool turn: the same system text, so the prefix is read from the cache.
      expect(first!.system).toEqual(expected);
      expect(second!.system).toEqual(expected);
      // The first step: the system's end, the last tool and the question.
      expect(marks(first!)).toEqual({ system: [2], tools: [first!.tools!.at(-1)!.name], messages: ['0.0'] });
      // The second: the same two, the newest message and the end of the previous request — four, no more.
      expect(marks(second!)).toEqual({ system: [2], tools: [second!.tools!.at(-1)!.name], messages: ['0.0', '2.0'] });
      expect(countCacheBreakpoints(second!)).toBe(MAX_CACHE_BREAKPOINTS);

      // Cleared between turns: the next request carries the prompt alone again.
      await setUserInstructions(h.db, user.id, null);
      await setConversationInstructions(h.db, user.id, conversation.id, null);
      await startRun(env.deps, { conversationId: conversation.id, userId: user.id, sessionId: null, text: 'again' });
      await env.deps.idle();
      const third = env.model.requests[2]!.body;
      expect(third.system).toBe(DEFAULT_SYSTEM_PROMPT);
      expect(countCacheBreakpoints(third)).toBeLessThanOrEqual(MAX_CACHE_BREAKPOINTS);
      await env.close();
    });

    it("are one person's own: another conversation and another person's turns carry none of them", async () => {
      const env = await toolEngine(h, { script: [{ blocks: [text('One.')] }, { blocks: [text('Two.')] }] });
      const ada = await userAndConversation(h);
      const bob = await userAndConversation(h);
      await setConversationInstructions(h.db, ada.user.id, ada.conversation.id, 'Only in this conversation.');
      // Another user cannot set them on Ada's conversation (ownership is part of the write).
      expect(await setConversationInstructions(h.db, bob.user.id, ada.conversation.id, 'Hijacked.')).toBeNull();
      await setUserInstructions(h.db, ada.user.id, 'Ada only.');
      await startRun(env.deps, { conversationId: bob.conversation.id, userId: bob.user.id, sessionId: null, text: 'hello' });
      await env.deps.idle();
      expect(env.model.requests[0]!.body.system).toBe(DEFAULT_SYSTEM_PROMPT);
      await startRun(env.deps, { conversationId: ada.conversation.id, userId: ada.user.id, sessionId: null, text: 'hello' });
      await env.deps.idle();
      expect(env.model.requests[1]!.body.system).toEqual([
        { type: 'text', text: DEFAULT_SYSTEM_PROMPT },
        { type: 'text', text: PERSONAL_BLOCK('Ada only.') },
        { type: 'text', text: CONVERSATION_BLOCK('Only in this conversation.'), cache_control: EPHEMERAL },
      ]);
      await env.close();
    });
  });
}
