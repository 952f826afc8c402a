import { readFileSync } from 'node:fs';
import path from 'node:path';
import githubDark from '@shikijs/themes/github-dark';
import githubDarkDefault from '@shikijs/themes/github-dark-default';
import githubLight from '@shikijs/themes/github-light';
import githubLightDefault from '@shikijs/themes/github-light-default';
import { describe, expect, it } from 'vitest';

import { CODE_THEMES, tokenColour, type CodeScheme } from './highlight-themes';
import { tokenize } from './highlight-tokens';

/**
 * WCAG AA for highlighted code: every colour either theme can give a token, as drawn (after
 * COLOUR_FIXES), has at least 4.5:1 against the code block's background, read from
 * app/globals.css (`--color-code-bg`, light and dark) and converted from OKLCH here.
 */

const AA_TEXT = 4.5;

/** `--color-code-bg: light-dark(oklch(L C H), oklch(L C H))` → the two backgrounds as sRGB 0–1. */
function codeBackgrounds(): Record<CodeScheme, [number, number, number]> {
  const css = readFileSync(path.resolve(import.meta.dirname, '../../globals.css'), 'utf8');
  const m = /--color-code-bg:\s*light-dark\(\s*oklch\(([^)]*)\)\s*,\s*oklch\(([^)]*)\)\s*\)/.exec(css);
  if (!m) throw new Error('--color-code-bg is not light-dark(oklch(…), oklch(…)) any more: read it another way');
  const parse = (s: string) => s.trim().split(/\s+/).map(Number) as [number, number, number];
  return { light: oklchToSrgb(...parse(m[1]!)), dark: oklchToSrgb(...parse(m[2]!)) };
}

/** OKLCH → OKLab → linear sRGB → sRGB (Björn Ottosson's matrices, as CSS Color 4 gives them), clipped to the gamut. */
function oklchToSrgb(l: number, c: number, hDeg: number): [number, number, number] {
  const h = (hDeg * Math.PI) / 180;
  const a = c * Math.cos(h);
  const b = c * Math.sin(h);
  const l_ = (l + 0.3963377774 * a + 0.2158037573 * b) ** 3;
  const m_ = (l - 0.1055613458 * a - 0.0638541728 * b) ** 3;
  const s_ = (l - 0.0894841775 * a - 1.291485548 * b) ** 3;
  const linear = [
    4.0767416621 * l_ - 3.3077115913 * m_ + 0.2309699292 * s_,
    -1.2684380046 * l_ + 2.6097574011 * m_ - 0.3413193965 * s_,
    -0.0041960863 * l_ - 0.7034186147 * m_ + 1.707614701 * s_,
  ];
  const encode = (x: number) => (x <= 0.0031308 ? 12.92 * x : 1.055 * x ** (1 / 2.4) - 0.055);
  return linear.map((x) => Math.min(1, Math.max(0, encode(x)))) as [number, number, number];
}

/** `#rrggbb` or `#rrggbbaa` (blended over the background, as the browser draws it). */
function hexToSrgb(hex: string, over: [number, number, number]): [number, number, number] {
  const n = hex.replace('#', '');
  const [r, g, b] = [0, 2, 4].map((i) => parseInt(n.slice(i, i + 2), 16) / 255) as [number, number, number];
  const alpha = n.length === 8 ? parseInt(n.slice(6, 8), 16) / 255 : 1;
  return [r, g, b].map((v, i) => v * alpha + over[i]! * (1 - alpha)) as [number, number, number];
}

function luminance(rgb: [number, number, number]): number {
  const [r, g, b] = rgb.map((v) => (v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4)) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

function contrast(a: [number, number, number], b: [number, number, number]): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

type Theme = { fg?: string; colors?: Record<string, string>; tokenColors?: { settings?: { foreground?: string } }[] };
/** The themes CODE_THEMES may name (one more needs its import here). */
const THEMES: Record<string, Theme> = {
  'github-light': githubLight,
  'github-dark': githubDark,
  'github-light-default': githubLightDefault,
  'github-dark-default': githubDarkDefault,
};

/** Every text colour a theme can give a token: its default foreground and each rule's foreground. */
function themeColours(scheme: CodeScheme): string[] {
  const theme = THEMES[CODE_THEMES[scheme]];
  if (!theme) throw new Error(`import the theme ${CODE_THEMES[scheme]} into this test`);
  const colours = [theme.fg, theme.colors?.['editor.foreground'], ...(theme.tokenColors ?? []).map((t) => t.settings?.foreground)];
  return [...new Set(colours.filter((c): c is string => typeof c === 'string').map((c) => c.toLowerCase()))];
}

describe('highlighted code contrast', () => {
  const backgrounds = codeBackgrounds();

  it.each(['light', 'dark'] as const)('every token colour of the %s theme reaches 4.5:1 on the code block', (scheme) => {
    const colours = themeColours(scheme);
    expect(colours.length).toBeGreaterThan(8);
    const bg = backgrounds[scheme];
    const short = colours
      .map((c) => ({ theme: c, drawn: tokenColour(scheme, c)! }))
      .map((c) => ({ ...c, ratio: Math.round(contrast(hexToSrgb(c.drawn, bg), bg) * 100) / 100 }))
      .filter((c) => c.ratio < AA_TEXT);
    expect(short).toEqual([]);
  });

  it('draws the replacement colours, not the theme’s, in tokenized code', async () => {
    const lines = await tokenize('// a comment\nconst a = 1;', 'ts');
    const comment = lines![0]!.tokens.find((t) => t.content.includes('a comment'))!;
    expect(comment.light).toBe(tokenColour('light', '#6e7781'));
    expect(comment.light).not.toBe('#6e7781');
    // Every colour the tokenizer gave passes too (colours come out lower-case, as the fixes are keyed).
    for (const t of lines!.flatMap((l) => l.tokens)) {
      expect(contrast(hexToSrgb(t.light!, backgrounds.light), backgrounds.light)).toBeGreaterThanOrEqual(AA_TEXT);
      expect(contrast(hexToSrgb(t.dark!, backgrounds.dark), backgrounds.dark)).toBeGreaterThanOrEqual(AA_TEXT);
    }
  }, 30_000);
});
