'use client';

import { startTransition, useEffect, useState } from 'react';

import { highlight, type HighlightedLine } from './highlight';

/** How long the text must stay the same before it is highlighted: a streaming block is left alone until it settles. */
const SETTLE_MS = 250;

/**
 * A code block's text, plain at once and coloured when the highlighter (loaded on demand) has it.
 * Each token's colour is `light-dark(…)`, so it follows the page's colour scheme without a reload.
 */
export function HighlightedCode({ code, lang }: { code: string; lang: string | undefined }) {
  const [lines, setLines] = useState<{ code: string; lines: HighlightedLine[] } | null>(null);
  useEffect(() => {
    if (!lang) return;
    let cancelled = false;
    const timer = setTimeout(() => {
      void highlight(code, lang).then((result) => {
        // Colour is not urgent: it never holds up typing, a stream or the transcript being drawn.
        if (!cancelled && result) startTransition(() => setLines({ code, lines: result }));
      });
    }, SETTLE_MS);
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
  }, [code, lang]);

  // Tokens of older text are never shown over newer text.
  if (!lines || lines.code !== code) return <code>{code}</code>;
  return (
    <code data-highlighted="">
      {lines.lines.map((line, i) => (
        <span key={i}>
          {line.tokens.map((t, j) => (
            <span key={j} style={t.light && t.dark ? { color: `light-dark(${t.light}, ${t.dark})` } : undefined}>
              {t.content}
            </span>
          ))}
          {i < lines.lines.length - 1 ? '\n' : null}
        </span>
      ))}
    </code>
  );
}
