import type { MetadataRoute } from 'next';

import { THEME_COLORS } from './_components/theme/preference';

/** Served at /manifest.webmanifest: lets a phone add Switchboard to its home screen, opening full-screen. */
export default function manifest(): MetadataRoute.Manifest {
  return {
    id: '/',
    name: 'Switchboard',
    short_name: 'Switchboard',
    description: 'Chat with Claude, using tools on MCP servers — you decide what runs.',
    start_url: '/',
    scope: '/',
    display: 'standalone',
    orientation: 'any',
    background_color: THEME_COLORS.light,
    theme_color: THEME_COLORS.light,
    icons: [
      { src: '/icons/icon-192.png', sizes: '192x192', type: 'image/png', purpose: 'any' },
      { src: '/icons/icon-512.png', sizes: '512x512', type: 'image/png', purpose: 'any' },
      { src: '/icons/icon-maskable-512.png', sizes: '512x512', type: 'image/png', purpose: 'maskable' },
      { src: '/icon.svg', sizes: 'any', type: 'image/svg+xml', purpose: 'any' },
    ],
  };
}
