'use client';

import { useCallback, useSyncExternalStore } from 'react';

import { formatWhen } from './share-view';

const noSubscription = () => () => {};

/**
 * Formats a date for the reader. The server cannot know the reader's time zone, so the first
 * render (on the server, and the hydration that must match it) says it in UTC, and the browser's
 * own zone takes over right after.
 */
export function useWhen(): (iso: string) => string {
  const inBrowser = useSyncExternalStore(
    noSubscription,
    () => true,
    () => false,
  );
  return useCallback(
    (iso: string) => (inBrowser ? formatWhen(iso) : `${formatWhen(iso, { timeZone: 'UTC', locale: 'en-US' })} UTC`),
    [inBrowser],
  );
}
