import { describe, expect, it, vi } from 'vitest';

import type { MessageView } from '../types';
import { branchingFor, siblingAt, textOfMessage, type BranchActions } from './branching';

const message = (
  id: string,
  role: 'user' | 'assistant',
  content: MessageView['content'],
  extra: Partial<MessageView> = {},
): MessageView => ({
  id,
  seq: 0,
  role,
  content,
  runId: role === 'assistant' ? 'run-1' : null,
  stopReason: null,
  createdAt: '2026-12-05T12:00:00.000Z',
  ...extra,
});

const actions = (): BranchActions => ({
  edit: vi.fn(async () => null),
  regenerate: vi.fn(async () => null),
  step: vi.fn(async () => null),
  showBeneath: vi.fn(async () => null),
});

// A turn with a tool call (answer, tool results, final answer), then a plain turn.
const path: MessageView[] = [
  message('u1', 'user', [{ type: 'text', text: 'Delete my old plans' }]),
  message('a1', 'assistant', [{ type: 'tool_use', id: 't1', name: 'notes__delete', input: {} }], {
    branch: { index: 1, count: 2, siblingIds: ['a0', 'a1'] },
  }),
  message('r1', 'user', [{ type: 'tool_result', tool_use_id: 't1', content: 'done' }]),
  message('a2', 'assistant', [{ type: 'text', text: 'Deleted.' }]),
  message('u2', 'user', [{ type: 'text', text: 'Thanks' }], { branch: { index: 0, count: 3, siblingIds: ['u2', 'u3', 'u4'] } }),
  message('a3', 'assistant', [{ type: 'text', text: 'You are welcome.' }], { runId: 'run-2' }),
];

describe('branchingFor', () => {
  it('offers Edit on typed messages, Regenerate (the whole turn) on each answer’s last message, versions where there are siblings', () => {
    const acts = actions();
    const openEditor = vi.fn();
    const byId = branchingFor(path, { activeRunId: undefined, blockedReason: null, actions: acts, openEditor });

    expect([...byId].filter(([, b]) => b.onEdit).map(([id]) => id)).toEqual(['u1', 'u2']);
    expect([...byId].filter(([, b]) => b.onRegenerate).map(([id]) => id)).toEqual(['a2', 'a3']);
    void byId.get('a2')!.onRegenerate!();
    expect(acts.regenerate).toHaveBeenCalledWith('a1');
    byId.get('u2')!.onEdit!();
    expect(openEditor).toHaveBeenCalledWith('u2');

    expect(byId.get('a1')!.version).toEqual({ position: 2, count: 2 });
    expect(byId.get('u2')!.version).toEqual({ position: 1, count: 3 });
    expect(byId.get('a2')!.version).toBeNull();
  });

  it('offers no Regenerate on the turn still running, and passes on why branching is refused', () => {
    const byId = branchingFor(path, { activeRunId: 'run-2', blockedReason: 'Wait.', actions: actions(), openEditor: () => {} });
    expect(byId.get('a3')!.onRegenerate).toBeUndefined();
    expect(byId.get('a2')!.onRegenerate).toBeDefined();
    expect(byId.get('u1')!.blockedReason).toBe('Wait.');
  });

  it('offers no Edit on a message a server’s prompt wrote', () => {
    const prompted = message('p1', 'user', [{ type: 'text', text: 'Review this' }], {
      origin: { v: 1, kind: 'prompt', serverId: 's', serverName: 'S', name: 'review' },
    });
    const byId = branchingFor([prompted], { activeRunId: undefined, blockedReason: null, actions: actions(), openEditor: () => {} });
    expect(byId.get('p1')!.onEdit).toBeUndefined();
  });
});

describe('siblingAt and textOfMessage', () => {
  it('steps to the sibling before or after, and nowhere past the ends', () => {
    const m = path[4]!;
    expect(siblingAt(m, 1)).toBe('u3');
    expect(siblingAt(m, -1)).toBeNull();
    expect(siblingAt(path[3]!, 1)).toBeNull();
  });

  it('gives the text a person wrote', () => {
    expect(textOfMessage(path[0]!)).toBe('Delete my old plans');
    expect(textOfMessage(path[2]!)).toBe('');
  });
});
