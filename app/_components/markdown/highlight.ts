'use client';

import type { HighlightedLine } from './highlight-tokens';
import type { HighlightRequest, HighlightResult } from './highlight.worker';

export type { HighlightedLine } from './highlight-tokens';

/**
 * Syntax highlighting for code the model writes, in a worker (./highlight.worker.ts, started on
 * first use): nothing of shiki is in the page's bundle or runs on its thread, so neither loading
 * a long transcript nor a streaming answer waits for a grammar to compile. The text is on
 * screen first; tokens come back as data (text + colours), rendered as React spans: no HTML
 * string is injected. Where the worker cannot start or fails, blocks stay plain.
 */

let worker: Worker | null | undefined;
let nextId = 0;
const pending = new Map<number, (lines: HighlightedLine[] | null) => void>();

function settleAll(): void {
  for (const resolve of pending.values()) resolve(null);
  pending.clear();
}

function getWorker(): Worker | null {
  if (worker !== undefined) return worker;
  try {
    worker = new Worker(new URL('./highlight.worker.ts', import.meta.url), { type: 'module', name: 'highlight' });
  } catch {
    worker = null;
    return worker;
  }
  // A batch of results resolves in one task, so React applies them in one render.
  worker.onmessage = (event: MessageEvent<HighlightResult[]>) => {
    for (const { id, lines } of event.data) {
      pending.get(id)?.(lines);
      pending.delete(id);
    }
  };
  // A worker that fails to load or throws is not retried: the blocks waiting on it, and later ones, stay plain.
  worker.onerror = () => {
    worker?.terminate();
    worker = null;
    settleAll();
  };
  return worker;
}

/** Tokens with their light and dark colours, or null when the language is unknown (or highlighting is unavailable). */
export function highlight(code: string, lang: string): Promise<HighlightedLine[] | null> {
  const target = getWorker();
  if (!target) return Promise.resolve(null);
  const id = ++nextId;
  return new Promise((resolve) => {
    pending.set(id, resolve);
    target.postMessage({ id, code, lang } satisfies HighlightRequest);
  });
}
