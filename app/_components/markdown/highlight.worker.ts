import { tokenize, type HighlightedLine } from './highlight-tokens';

/**
 * The page's highlighter, off its main thread (./highlight.ts posts the requests). Requests are
 * answered in batches: the ones that came while the previous batch (or the grammar) was being
 * worked on go back in one message, so the page applies them in one render instead of one per
 * block — fifty separate updates kept restarting the page's own transitions (a long transcript
 * being drawn in steps, `useRevealFromEnd`).
 */

export interface HighlightRequest {
  id: number;
  code: string;
  lang: string;
}

export interface HighlightResult {
  id: number;
  lines: HighlightedLine[] | null;
}

// The worker's global, typed by hand: the project compiles with the DOM library, and the
// WebWorker one declares the same globals again.
const scope = self as unknown as {
  onmessage: ((event: MessageEvent<HighlightRequest>) => void) | null;
  postMessage(message: HighlightResult[]): void;
};

let waiting: HighlightRequest[] = [];
/** A drain is scheduled or running: a request that comes meanwhile joins its next batch. */
let draining = false;

async function drain(): Promise<void> {
  try {
    while (waiting.length > 0) {
      const batch = waiting;
      waiting = [];
      const results: HighlightResult[] = [];
      for (const r of batch) results.push({ id: r.id, lines: await tokenize(r.code, r.lang) });
      scope.postMessage(results);
    }
  } finally {
    draining = false;
  }
}

scope.onmessage = (event) => {
  waiting.push(event.data);
  if (draining) return;
  draining = true;
  // A macrotask later, so the requests posted by one render of the page arrive as one batch.
  setTimeout(() => void drain(), 0);
};
