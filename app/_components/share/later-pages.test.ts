import { describe, expect, it } from 'vitest';

import { withLaterPage } from './later-pages';
import type { SharedMessagesPage, SharedMessageView, SharedToolCallView } from './share-view';

const message = (id: string) => ({ id, role: 'user', content: [{ type: 'text', text: id }] }) as unknown as SharedMessageView;
const call = (toolUseId: string) => ({ toolUseId }) as unknown as SharedToolCallView;

describe('withLaterPage', () => {
  const first: SharedMessagesPage = { messages: [message('m1'), message('m2')], toolCalls: [call('t1')], later: 3, next: 'm2' };
  const second: SharedMessagesPage = { messages: [message('m3'), message('m5')], toolCalls: [call('t3')], later: 0, next: null };

  it('puts the page asked for after the last one behind it, with its calls, and says what is left', () => {
    const shown = withLaterPage(first, 'm2', second);
    expect(shown.messages.map((m) => m.id)).toEqual(['m1', 'm2', 'm3', 'm5']);
    expect(shown.toolCalls.map((c) => c.toolUseId)).toEqual(['t1', 't3']);
    expect(shown).toMatchObject({ later: 0, next: null });
  });

  it('ignores a page asked for after another message (a late or repeated answer)', () => {
    const once = withLaterPage(first, 'm2', second);
    expect(withLaterPage(once, 'm2', second)).toBe(once);
    expect(withLaterPage(first, 'm1', second)).toBe(first);
  });
});
