/**
 * The colours of highlighted code, light and dark. GitHub's current themes, with the few colours
 * that fall short of WCAG AA (4.5:1) on our code block's background (`--color-code-bg` in
 * app/globals.css) replaced: the light comment grey, and the pale text those themes draw on a
 * coloured background (a carriage return, an ignored file in a diff) — we draw no token
 * backgrounds, so such a token takes its background colour as its text colour instead.
 * highlight-themes.test.ts computes the contrast of every colour of both themes against the
 * block's background, so a theme or background change that breaks it fails there.
 */

export const CODE_THEMES = { light: 'github-light-default', dark: 'github-dark-default' } as const;
export type CodeScheme = keyof typeof CODE_THEMES;

/** Theme colour (lower-case #rrggbb) → the colour drawn instead. */
export const COLOUR_FIXES: Record<CodeScheme, Record<string, string>> = {
  light: {
    '#6e7781': '#59636e', // comments: 4.17:1 → 5.6:1
    '#f6f8fa': '#cf222e', // carriage-return (drawn on #cf222e)
    '#eaeef2': '#0550ae', // markup.ignored / untracked (drawn on #0550ae)
  },
  dark: {
    '#161b22': '#79c0ff', // markup.ignored / untracked (drawn on #79c0ff)
  },
};

/** The colour a token is drawn in: the theme's, or its replacement. */
export function tokenColour(scheme: CodeScheme, colour: string | undefined): string | undefined {
  if (!colour) return colour;
  const key = colour.toLowerCase();
  return COLOUR_FIXES[scheme][key] ?? key;
}
