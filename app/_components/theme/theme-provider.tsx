'use client';

import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState } from 'react';

import { THEME_COLORS, THEME_COOKIE, themeAttribute, type ThemePreference } from './preference';

type ThemeContextValue = { preference: ThemePreference; setPreference: (next: ThemePreference) => void };

const ThemeContext = createContext<ThemeContextValue | null>(null);
// Other tabs of the app switch along; a cookie has no change event of its own.
const CHANNEL = 'switchboard-theme';

/** Puts a choice on the page: the <html> attribute, the phone's bar colour. */
function applyToDocument(preference: ThemePreference) {
  const root = document.documentElement;
  const attribute = themeAttribute(preference);
  if (attribute) root.dataset.theme = attribute;
  else delete root.dataset.theme;
  for (const meta of document.querySelectorAll<HTMLMetaElement>('meta[name="theme-color"]')) {
    // With a forced theme every variant (light and dark media) takes its colour; "system" restores each.
    const media = meta.media.includes('dark') ? 'dark' : meta.media.includes('light') ? 'light' : null;
    meta.content = THEME_COLORS[attribute ?? media ?? 'light'];
  }
}

function storeInCookie(preference: ThemePreference) {
  const secure = location.protocol === 'https:' ? '; Secure' : '';
  const value = preference === 'system' ? '; Max-Age=0' : `; Max-Age=${60 * 60 * 24 * 400}`;
  document.cookie = `${THEME_COOKIE}=${preference}; Path=/; SameSite=Lax${value}${secure}`;
}

/** Holds the theme choice the server rendered with, and changes it for this and the other open tabs. */
export function ThemeProvider({ initial, children }: { initial: ThemePreference; children: React.ReactNode }) {
  const [preference, setState] = useState(initial);
  const channel = useRef<BroadcastChannel | null>(null);

  useEffect(() => {
    if (typeof BroadcastChannel === 'undefined') return;
    const ch = new BroadcastChannel(CHANNEL);
    ch.onmessage = (e: MessageEvent<ThemePreference>) => {
      setState(e.data);
      applyToDocument(e.data);
    };
    channel.current = ch;
    return () => {
      channel.current = null;
      ch.close();
    };
  }, []);

  const setPreference = useCallback((next: ThemePreference) => {
    setState(next);
    applyToDocument(next);
    storeInCookie(next);
    channel.current?.postMessage(next);
  }, []);

  const value = useMemo(() => ({ preference, setPreference }), [preference, setPreference]);
  return <ThemeContext.Provider value={value}>{children}</ThemeContext.Provider>;
}

export function useTheme(): ThemeContextValue {
  const value = useContext(ThemeContext);
  if (!value) throw new Error('useTheme needs a ThemeProvider (app/layout.tsx)');
  return value;
}
