import { createHash } from 'node:crypto';

// The demo model's prompt cache, so a host's cache breakpoints show in the usage it reports the
// way they would with the real API: a request's prefix up to each `cache_control` breakpoint
// (tools, then system, then messages, in that order) is remembered for five minutes; the next
// request that starts with the same prefix reads it (`cache_read_input_tokens`), and what lies
// between the longest prefix read and the last breakpoint is written
// (`cache_creation_input_tokens`). Prefixes shorter than the API's minimum are not cached.
// Tokens are counted as the demo counts them everywhere: four characters each.

const TTL_MS = 5 * 60_000;
const MAX_ENTRIES = 500;
/** The API's smallest cacheable prefix for most models. */
export const MIN_CACHEABLE_TOKENS = 1024;

const remembered = new Map<string, number>(); // prefix hash → when it expires

export interface CacheUsage {
  inputTokens: number;
  creationTokens: number;
  readTokens: number;
}

/** Splits a request's input tokens (`totalTokens`) into uncached, written and read, and remembers its prefixes. */
export function promptCacheUsage(body: unknown, totalTokens: number, now = Date.now()): CacheUsage {
  const prefixes = breakpointPrefixes(body).filter((p) => p.tokens >= MIN_CACHEABLE_TOKENS);
  if (!prefixes.length) return { inputTokens: totalTokens, creationTokens: 0, readTokens: 0 };
  let read = 0;
  for (const p of prefixes) if ((remembered.get(p.hash) ?? 0) > now) read = Math.max(read, p.tokens);
  const longest = Math.min(totalTokens, prefixes.at(-1)!.tokens);
  const creation = Math.max(0, longest - read);
  for (const p of prefixes) remember(p.hash, now + TTL_MS);
  read = Math.min(read, totalTokens);
  return { inputTokens: Math.max(0, totalTokens - read - creation), creationTokens: creation, readTokens: read };
}

function remember(hash: string, until: number) {
  remembered.delete(hash);
  remembered.set(hash, until);
  while (remembered.size > MAX_ENTRIES) remembered.delete(remembered.keys().next().value!);
}

/** The prefix of the request up to each breakpoint: its hash and its size in tokens. */
function breakpointPrefixes(body: unknown): { hash: string; tokens: number }[] {
  if (!body || typeof body !== 'object') return [];
  const b = body as { model?: unknown; tools?: unknown; system?: unknown; messages?: unknown };
  const pieces: { text: string; marked: boolean }[] = [];
  const add = (item: unknown) => pieces.push({ text: JSON.stringify(unmarked(item)), marked: isMarked(item) });
  for (const t of Array.isArray(b.tools) ? b.tools : []) add(t);
  if (Array.isArray(b.system)) for (const s of b.system) add(s);
  else if (typeof b.system === 'string') add(b.system);
  for (const m of Array.isArray(b.messages) ? (b.messages as { role?: unknown; content?: unknown }[]) : []) {
    pieces.push({ text: `\n${String(m.role)}:`, marked: false });
    if (Array.isArray(m.content)) for (const c of m.content) add(c);
    else add(m.content);
  }
  const out: { hash: string; tokens: number }[] = [];
  const hash = createHash('sha256').update(String(b.model));
  let length = 0;
  for (const p of pieces) {
    hash.update(p.text);
    length += p.text.length;
    if (p.marked) out.push({ hash: hash.copy().digest('hex'), tokens: Math.ceil(length / 4) });
  }
  return out;
}

function isMarked(item: unknown): boolean {
  return Boolean(item && typeof item === 'object' && (item as { cache_control?: unknown }).cache_control);
}

function unmarked(item: unknown): unknown {
  if (!isMarked(item)) return item;
  const copy = { ...(item as Record<string, unknown>) };
  delete copy.cache_control;
  return copy;
}
