'use client';

import { useEffect, useRef, type RefObject } from 'react';

import { Button } from '../ui/index';

/** Start reading the page before when the control is this close to coming into view. */
const AHEAD_PX = 600;

/**
 * Above the first message the page has, when the conversation goes back further: reads the page
 * before as the person scrolls up to it, or at a click (the keyboard's way, and a fallback).
 * `busy`: a page is being read or drawn above; the control keeps its place (and its height, so
 * the messages below do not move when it goes) and reads nothing more until it is drawn.
 */
export function EarlierMessages({
  count,
  busy,
  onLoad,
  scroller,
}: {
  count: number;
  busy: boolean;
  onLoad: () => Promise<void>;
  /** The transcript's scrolling box: coming into view is measured in it. */
  scroller: RefObject<HTMLElement | null>;
}) {
  const marker = useRef<HTMLDivElement>(null);
  const waiting = count > 0 && !busy;
  useEffect(() => {
    const el = marker.current;
    if (!el || !waiting) return;
    const seen = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && void onLoad(), {
      root: scroller.current,
      rootMargin: `${AHEAD_PX}px 0px 0px 0px`,
    });
    seen.observe(el);
    return () => seen.disconnect();
  }, [onLoad, scroller, waiting]);
  return (
    <div ref={marker} className="flex justify-center" data-testid="earlier-messages">
      <Button variant="ghost" size="sm" loading={busy} disabled={!waiting} onClick={() => void onLoad()}>
        {busy ? 'Loading earlier messages…' : `Show ${count.toLocaleString('en')} earlier message${count === 1 ? '' : 's'}`}
      </Button>
    </div>
  );
}
