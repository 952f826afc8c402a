'use client';

import { startTransition, useEffect, useState } from 'react';

/** Messages drawn with the page (server-rendered and hydrated): the end a person reads first. */
export const FIRST_SHOWN = 40;
/** Older messages drawn per step after that. */
export const SHOWN_PER_STEP = 60;

/**
 * Where a long transcript starts being drawn: the page comes up with its last `FIRST_SHOWN`
 * messages, then the older ones are added a step at a time in transitions, which React renders
 * in slices between frames. Drawing 300 messages at once made one long task of hydration, and
 * the page answered a click only after it (`npm run bench`, Page).
 */
export function useRevealFromEnd(total: number): number {
  const [shownFrom, setShownFrom] = useState(() => Math.max(0, total - FIRST_SHOWN));
  useEffect(() => {
    if (shownFrom === 0) return;
    const frame = requestAnimationFrame(() => startTransition(() => setShownFrom((from) => Math.max(0, from - SHOWN_PER_STEP))));
    return () => cancelAnimationFrame(frame);
  }, [shownFrom]);
  return Math.min(shownFrom, total);
}
