// "Allow for this session" on the approval card, without React: whether it is offered (and why
// not), and the argument limits the person may attach, built from this call's own arguments.

import { suggestConstraints } from '@/lib/consent/constraints';

import type { ToolCallView } from '../types';

export type SessionChoice = { key: string; label: string; constraint: Record<string, unknown> | null };

const MAX_SUGGESTIONS = 3;

/** "Any arguments" first, then up to three limits from this call ("only path under /notes/projects/ (no ..)"). */
export function sessionChoices(call: ToolCallView): SessionChoice[] {
  const suggestions = suggestConstraints(call.input, null).slice(0, MAX_SUGGESTIONS);
  return [
    { key: 'any', label: `any arguments to ${call.tool ?? call.modelName}`, constraint: null },
    ...suggestions.map((s, i) => ({ key: `s${i}`, label: s.label, constraint: s.constraint })),
  ];
}
