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
 * the page answered a click only after it (`npm run bench`, Page). An earlier page put in front
 * (./earlier-pages.ts) is drawn the same way, from the message that was first before it.
 */
export function useRevealFromEnd(messages: readonly { id: string }[]): number {
  const firstId = messages[0]?.id;
  const [shown, setShown] = useState(() => ({ firstId, from: Math.max(0, messages.length - FIRST_SHOWN) }));
  if (shown.firstId !== firstId) {
    // Messages put in front of the one that was first: it keeps its place among the drawn ones.
    const was = shown.firstId === undefined ? -1 : messages.findIndex((m) => m.id === shown.firstId);
    setShown({ firstId, from: was > 0 ? shown.from + was : shown.from });
  }
  useEffect(() => {
    if (shown.from === 0) return;
    const frame = requestAnimationFrame(() =>
      startTransition(() => setShown((s) => ({ ...s, from: Math.max(0, s.from - SHOWN_PER_STEP) }))),
    );
    return () => cancelAnimationFrame(frame);
  }, [shown.from]);
  return Math.min(shown.from, messages.length);
}
