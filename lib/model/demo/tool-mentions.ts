// Finds the tools a user's message names, so the demo model can call them.
//
// Two ways to name a tool (spec):
//   (a) a line `call <name> {json}` — the JSON object is the exact input;
//       JSON that does not parse (or is not an object) counts as "no args";
//   (b) a bare mention: a namespaced `server__tool` name, or the exact name of
//       an offered tool, as a whole word.
// Names come back in order of first appearance, each once. Names nobody
// offered are kept on purpose: hosts must be able to test that they reject a
// tool the model was never given.

export type ToolMention = {
  name: string;
  /** The explicit input from a `call` line, or undefined when none was given. */
  args?: Record<string, unknown>;
};

// The JSON part is required: without it, any sentence starting "Call ..."
// would become a tool call. `call x` alone is still caught by (b) when x is a
// namespaced or offered name.
const CALL_LINE = /^[ \t]*`?call[ \t]+`?([A-Za-z0-9_.-]+)`?[ \t]+(`?\{.*?)[ \t]*$/dgim;
const NAMESPACED = /\b[a-zA-Z0-9-]+__[a-zA-Z0-9_-]+\b/g;

type Found = { name: string; index: number; args?: Record<string, unknown> };

export function findToolMentions(text: string, offeredNames: readonly string[]): ToolMention[] {
  const found: Found[] = [];

  // (a) explicit calls. Their JSON is blanked out afterwards so a tool name
  // inside an argument value is not taken as a second call.
  let scannable = text;
  for (const match of text.matchAll(CALL_LINE)) {
    const [, name, rest] = match;
    const nameSpan = match.indices?.[1];
    const restSpan = match.indices?.[2];
    if (!nameSpan || !restSpan) continue;
    found.push({ name, index: nameSpan[0], args: parseArgs(rest) });
    scannable = blank(scannable, restSpan[0], restSpan[1] - restSpan[0]);
  }

  // (b) bare mentions.
  for (const match of scannable.matchAll(NAMESPACED)) {
    found.push({ name: match[0], index: match.index ?? 0 });
  }
  for (const name of offeredNames) {
    if (!name) continue;
    const wholeWord = new RegExp(`(?<![A-Za-z0-9_-])${escapeRegExp(name)}(?![A-Za-z0-9_-])`, 'g');
    for (const match of scannable.matchAll(wholeWord)) {
      found.push({ name, index: match.index ?? 0 });
    }
  }

  // Order of first appearance; an explicit call's args win over a bare mention
  // of the same name wherever it sits.
  found.sort((a, b) => a.index - b.index);
  const byName = new Map<string, ToolMention>();
  for (const f of found) {
    const existing = byName.get(f.name);
    if (!existing) byName.set(f.name, { name: f.name, args: f.args });
    else if (existing.args === undefined && f.args !== undefined) existing.args = f.args;
  }
  return [...byName.values()];
}

function parseArgs(raw: string): Record<string, unknown> | undefined {
  const trimmed = raw.trim().replace(/^`|`$/g, '');
  try {
    const value: unknown = JSON.parse(trimmed);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function blank(text: string, start: number, length: number): string {
  return text.slice(0, start) + ' '.repeat(length) + text.slice(start + length);
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
