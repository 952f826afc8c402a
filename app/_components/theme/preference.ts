// The person's theme choice, shared by the server (which renders it) and the browser (which
// changes it). It lives in a cookie rather than localStorage so the server can put it on <html>
// in the first response: the right colours paint first time, with no script before paint.

export type ThemePreference = 'system' | 'light' | 'dark';

export const THEME_COOKIE = 'theme';

/** The canvas colour of each theme, for `theme-color` (the phone's status and address bar). */
export const THEME_COLORS = { light: '#fafaf9', dark: '#191715' } as const;

export function parseThemePreference(value: string | undefined | null): ThemePreference {
  return value === 'light' || value === 'dark' ? value : 'system';
}

/** The `data-theme` attribute for <html>: none follows the system through CSS alone. */
export function themeAttribute(preference: ThemePreference): 'light' | 'dark' | undefined {
  return preference === 'system' ? undefined : preference;
}
