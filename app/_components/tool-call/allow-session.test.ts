import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';

import { inputProblem } from '@/lib/mcp/schema-guard';
import { sampleToolCallView } from '@/test/sample-tool-call';

import type { ToolCallView } from '../types';
import { sessionChoices } from './allow-session';
import { ApprovalCard } from './approval-card';

const input = { path: '/notes/projects/plan.md', body: 'x'.repeat(300) };
const base = sampleToolCallView({ status: 'pending_approval', server: 'Notes', tool: 'write', modelName: 'notes__write', input });
const withSession = (allowForSession: ToolCallView['allowForSession']) => sampleToolCallView({ ...base, allowForSession });
const render = (call: ToolCallView) =>
  renderToStaticMarkup(createElement(ApprovalCard, { call, onDecide: async () => {}, onStop: () => {} }))
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ');

describe('Allow for this session on the approval card', () => {
  it('is offered only when the view says so', () => {
    expect(render(withSession({ offered: true, why: null }))).toContain('Allow for this session…');
    const refused = render(withSession({ offered: false, why: 'Delete everything can delete or overwrite, so it asks every time.' }));
    expect(refused).not.toContain('Allow for this session…');
    expect(refused).toContain('“Allow for this session” is not offered. Delete everything can delete or overwrite, so it asks every time.');
  });

  it('a view without the field (a call stored by an older release) offers nothing and says nothing', () => {
    const html = render(base);
    expect(base.allowForSession).toEqual({ offered: false, why: null });
    expect(html).not.toContain('this session');
    expect(html).toContain('Allow once');
  });

  it('offers any arguments, or a limit built from this call that this call meets', () => {
    const choices = sessionChoices(base);
    expect(choices.map((c) => c.label)).toEqual([
      'any arguments to write',
      'only path under /notes/projects/ (no ..)',
      'only when path is “/notes/projects/plan.md”',
    ]);
    expect(choices[0]!.constraint).toBeNull();
    for (const c of choices.slice(1)) expect(inputProblem(c.constraint!, input)).toBeNull();
    expect(inputProblem(choices[1]!.constraint!, { ...input, path: '/notes/other.md' })).not.toBeNull();
  });
});
