/**
 * Ranks tools against a search query, small enough to explain in one paragraph:
 * the query and each tool's name, title and description are cut into lower-case terms (on
 * anything that is not a letter or digit, and between camelCase words; a few filler words are
 * dropped, and a trailing plural "s" is ignored). Each query term scores once per tool, by the
 * best place it is found: in the tool's name 3, in its server's namespace or its title 2, in its
 * description 1 (a server's name says less about a tool than the tool's own); a query term that
 * only starts a word (at least 3 letters, "cal" for "calendar") scores half. A query naming a
 * tool exactly adds 10: one of its words is the model-facing name, or the whole query is the
 * server's name for it. Tools scoring 0 are not returned;
 * ties keep the order the tools came in. Pure: no I/O, same answer everywhere.
 */

export interface RankableTool {
  /** The model-facing name (`<namespace>__<tool>`). */
  name: string;
  /** The tool's own name on its server, and its server's namespace (else both come from `name`). */
  toolName?: string;
  namespace?: string;
  title?: string | null;
  description?: string | null;
}

export interface RankedTool<T extends RankableTool> {
  tool: T;
  score: number;
  /** The query terms that matched, for explaining a result. */
  matched: string[];
}

export const WEIGHTS = { name: 3, namespace: 2, title: 2, description: 1, exactName: 10, prefixFactor: 0.5 } as const;
const MIN_PREFIX = 3;

const FILLER = new Set([
  'a',
  'an',
  'the',
  'to',
  'of',
  'for',
  'in',
  'on',
  'and',
  'or',
  'with',
  'by',
  'from',
  'tool',
  'tools',
  'please',
  'me',
  'my',
  'i',
]);

/** Lower-case terms of a text: split on non-alphanumerics and camelCase, filler dropped, plural "s" folded. */
export function terms(text: string | null | undefined): string[] {
  if (!text) return [];
  const words = text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w && !FILLER.has(w));
  return words.map(fold);
}

function fold(word: string): string {
  return word.length > 3 && word.endsWith('s') && !word.endsWith('ss') ? word.slice(0, -1) : word;
}

function fieldScore(term: string, fieldTerms: readonly string[], weight: number): number {
  if (fieldTerms.includes(term)) return weight;
  if (term.length >= MIN_PREFIX && fieldTerms.some((t) => t.startsWith(term))) return weight * WEIGHTS.prefixFactor;
  return 0;
}

export function rankTools<T extends RankableTool>(query: string, tools: readonly T[], limit: number): RankedTool<T>[] {
  const queryTerms = [...new Set(terms(query))];
  const whole = query.trim().toLowerCase();
  const words = new Set(whole.split(/\s+/));
  const ranked: (RankedTool<T> & { order: number })[] = [];
  tools.forEach((tool, order) => {
    const [head, ...tail] = tool.name.split('__');
    const fields = [
      { terms: terms(tool.toolName ?? (tail.length ? tail.join('__') : tool.name)), weight: WEIGHTS.name },
      { terms: terms(tool.namespace ?? (tail.length ? head : undefined)), weight: WEIGHTS.namespace },
      { terms: terms(tool.title), weight: WEIGHTS.title },
      { terms: terms(tool.description), weight: WEIGHTS.description },
    ];
    let score = 0;
    const matched: string[] = [];
    for (const term of queryTerms) {
      const best = Math.max(...fields.map((f) => fieldScore(term, f.terms, f.weight)));
      if (best > 0) {
        score += best;
        matched.push(term);
      }
    }
    if (words.has(tool.name.toLowerCase()) || (whole && whole === tool.toolName?.toLowerCase())) score += WEIGHTS.exactName;
    if (score > 0) ranked.push({ tool, score, matched, order });
  });
  ranked.sort((a, b) => b.score - a.score || a.order - b.order);
  return ranked.slice(0, Math.max(0, limit)).map(({ tool, score, matched }) => ({ tool, score, matched }));
}
