import type { HighlighterCore } from 'shiki/core';

import { CODE_THEMES, tokenColour } from './highlight-themes';

/**
 * Tokenizing code with shiki on its JavaScript regex engine (the page's CSP allows no
 * WebAssembly compilation, which the Oniguruma engine needs). Runs in the highlight worker
 * (./highlight.worker.ts): a grammar's first use compiles hundreds of regular expressions —
 * 150–450 ms for TypeScript — which on the page's own thread was one long task in the middle
 * of loading a transcript (`npm run bench`, Page).
 */

export interface HighlightedLine {
  tokens: { content: string; light?: string; dark?: string }[];
}

let highlighter: Promise<HighlighterCore> | undefined;
const loading = new Map<string, Promise<boolean>>();

function getHighlighter(): Promise<HighlighterCore> {
  highlighter ??= (async () => {
    const [{ createHighlighterCore }, { createJavaScriptRegexEngine }, light, dark] = await Promise.all([
      import('shiki/core'),
      import('shiki/engine/javascript'),
      import('@shikijs/themes/github-light-default'),
      import('@shikijs/themes/github-dark-default'),
    ]);
    return createHighlighterCore({ themes: [light.default, dark.default], langs: [], engine: createJavaScriptRegexEngine() });
  })();
  return highlighter;
}

/** Loads a grammar once; false when shiki has none by that name (the block stays plain). */
async function ensureLanguage(h: HighlighterCore, lang: string): Promise<boolean> {
  if (h.getLoadedLanguages().includes(lang)) return true;
  let ready = loading.get(lang);
  if (!ready) {
    ready = (async () => {
      const { bundledLanguages } = await import('shiki/langs');
      const load = (bundledLanguages as Record<string, (() => Promise<{ default: unknown }>) | undefined>)[lang];
      if (!load) return false;
      await h.loadLanguage((await load()).default as Parameters<HighlighterCore['loadLanguage']>[0]);
      return true;
    })().catch(() => false);
    loading.set(lang, ready);
  }
  return ready;
}

/** Tokens with their light and dark colours, or null when the language is unknown (or loading failed). */
export async function tokenize(code: string, lang: string): Promise<HighlightedLine[] | null> {
  const name = lang.toLowerCase();
  try {
    const h = await getHighlighter();
    if (!(await ensureLanguage(h, name))) return null;
    const withThemes = h.codeToTokensWithThemes(code, { lang: name, themes: CODE_THEMES });
    return withThemes.map((line) => ({
      tokens: line.map((t) => ({
        content: t.content,
        light: tokenColour('light', t.variants.light?.color),
        dark: tokenColour('dark', t.variants.dark?.color),
      })),
    }));
  } catch {
    return null;
  }
}
