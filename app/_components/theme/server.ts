import { cookies } from 'next/headers';

import { parseThemePreference, THEME_COOKIE, type ThemePreference } from './preference';

export async function readThemePreference(): Promise<ThemePreference> {
  return parseThemePreference((await cookies()).get(THEME_COOKIE)?.value);
}
