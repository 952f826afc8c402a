import type { Metadata, Viewport } from 'next';

import { THEME_COLORS, themeAttribute } from './_components/theme/preference';
import { readThemePreference } from './_components/theme/server';
import { ThemeProvider } from './_components/theme/theme-provider';

import './globals.css';

export const metadata: Metadata = {
  title: 'Switchboard',
  applicationName: 'Switchboard',
  description: 'Chat with Claude, using tools on MCP servers — you decide what runs.',
  icons: {
    icon: [
      { url: '/favicon.ico', sizes: '16x16 32x32 48x48' },
      { url: '/icon.svg', type: 'image/svg+xml' },
    ],
    apple: { url: '/apple-touch-icon.png', sizes: '180x180' },
  },
  // Added to an iPhone's home screen, it opens without Safari's bars.
  appleWebApp: { capable: true, title: 'Switchboard', statusBarStyle: 'default' },
  formatDetection: { telephone: false },
};

/** Per request: the theme cookie decides `color-scheme` and the bar colour a phone paints. */
export async function generateViewport(): Promise<Viewport> {
  const forced = themeAttribute(await readThemePreference());
  return {
    width: 'device-width',
    initialScale: 1,
    // Full-screen on notched phones; the layout pads itself with env(safe-area-inset-*).
    viewportFit: 'cover',
    // The on-screen keyboard shrinks the page, so the composer stays above it.
    interactiveWidget: 'resizes-content',
    colorScheme: forced ?? 'light dark',
    themeColor: [
      { media: '(prefers-color-scheme: light)', color: THEME_COLORS[forced ?? 'light'] },
      { media: '(prefers-color-scheme: dark)', color: THEME_COLORS[forced ?? 'dark'] },
    ],
  };
}

export default async function RootLayout({ children }: { children: React.ReactNode }) {
  const preference = await readThemePreference();
  // The server renders the choice onto <html>: the first paint has the right theme and no
  // inline script is needed, so the nonce CSP (proxy.ts) has nothing to allow.
  return (
    <html lang="en" data-theme={themeAttribute(preference)}>
      <body>
        <ThemeProvider initial={preference}>{children}</ThemeProvider>
      </body>
    </html>
  );
}
