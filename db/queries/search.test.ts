import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { snippetAround } from '@/lib/chat/search';

import { openTestDb, TEST_DATABASES } from '../../test/db';
import type { DbHandle } from '../connection';
import { createConversation, searchConversations } from './conversations';
import { appendMessage } from './messages';
import { createUser } from './users';

for (const { kind, available } of TEST_DATABASES) {
  describe.skipIf(!available)(`searching conversations on ${kind}`, () => {
    let h: DbHandle;
    beforeAll(async () => {
      h = await openTestDb(kind);
    });
    afterAll(async () => h?.close());

    it('finds titles and what people and the model wrote, not tool output, and only the owner’s', async () => {
      const me = (await createUser(h.db, { email: `s-${Date.now()}@example.test`, passwordHash: 'x' }))!;
      const other = (await createUser(h.db, { email: `o-${Date.now()}@example.test`, passwordHash: 'x' }))!;
      const byTitle = await createConversation(h.db, { userId: me.id, model: 'demo', title: 'Lisbon itinerary' });
      const byText = await createConversation(h.db, { userId: me.id, model: 'demo', title: 'Travel' });
      await appendMessage(h.db, {
        conversationId: byText.id,
        role: 'user',
        content: [{ type: 'text', text: 'Book a table in LISBON for Friday' }],
      });
      const byTool = await createConversation(h.db, { userId: me.id, model: 'demo', title: 'Notes' });
      await appendMessage(h.db, {
        conversationId: byTool.id,
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 't', content: [{ type: 'text', text: 'lisbon in a tool result' }] }],
      });
      const theirs = await createConversation(h.db, { userId: other.id, model: 'demo', title: 'Lisbon too' });

      const found = await searchConversations(h.db, me.id, 'lisbon');
      expect(found.map((m) => m.conversation.id).sort()).toEqual([byTitle.id, byText.id].sort());
      expect(found.find((m) => m.conversation.id === byText.id)!.matchedText).toBe('Book a table in LISBON for Friday');
      expect(found.find((m) => m.conversation.id === byTitle.id)!.matchedText).toBeNull();
      expect(found.some((m) => m.conversation.id === theirs.id)).toBe(false);
    });

    it('takes % and _ literally', async () => {
      const me = (await createUser(h.db, { email: `w-${Date.now()}@example.test`, passwordHash: 'x' }))!;
      await createConversation(h.db, { userId: me.id, model: 'demo', title: 'Plain title' });
      const pct = await createConversation(h.db, { userId: me.id, model: 'demo', title: 'Raise by 5% now' });
      expect((await searchConversations(h.db, me.id, '%')).map((m) => m.conversation.id)).toEqual([pct.id]);
      expect(await searchConversations(h.db, me.id, '_')).toEqual([]);
    });
  });
}

describe('snippetAround', () => {
  it('cuts a long text to a few words around the first match', () => {
    const text = `${'a '.repeat(100)}the word Lisbon is here ${'b '.repeat(100)}`;
    const snippet = snippetAround(text, 'lisbon');
    expect(snippet.startsWith('…')).toBe(true);
    expect(snippet.endsWith('…')).toBe(true);
    expect(snippet).toContain('the word Lisbon is here');
    expect(snippet.length).toBeLessThan(120);
  });
});
