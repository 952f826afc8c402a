'use client';

import { useEffect, useRef, type RefObject } from 'react';

import { Button } from '../ui/index';

/** Start reading the next page when the control is this close to coming into view. */
const AHEAD_PX = 600;

/**
 * Where a paged conversation goes on (lib/chat/path-page.ts): above the first message the owner's
 * page has (`earlier`: the conversation goes back further), or below the last one a shared page has
 * (`later`: it reads from the start). Reads the next page as the person scrolls to it, or at a
 * click (the keyboard's way, and a fallback). `busy`: a page is being read or drawn; the control
 * keeps its place (and its height, so the messages do not move when it goes) and reads nothing
 * more until it is drawn. `failed`: the last read failed — only a click tries again (scrolling
 * would ask again and again while the control stays in view).
 */
export function MoreMessages({
  direction,
  count,
  busy,
  failed = false,
  onLoad,
  scroller,
}: {
  direction: 'earlier' | 'later';
  count: number;
  busy: boolean;
  failed?: boolean;
  onLoad: () => Promise<void>;
  /** The scrolling box coming into view is measured in (none: the window). */
  scroller?: RefObject<HTMLElement | null>;
}) {
  const marker = useRef<HTMLDivElement>(null);
  const waiting = count > 0 && !busy;
  useEffect(() => {
    const el = marker.current;
    if (!el || !waiting || failed) return;
    const seen = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && void onLoad(), {
      root: scroller?.current ?? null,
      rootMargin: direction === 'earlier' ? `${AHEAD_PX}px 0px 0px 0px` : `0px 0px ${AHEAD_PX}px 0px`,
    });
    seen.observe(el);
    return () => seen.disconnect();
  }, [direction, failed, onLoad, scroller, waiting]);
  const what = `${count.toLocaleString('en')} ${direction === 'earlier' ? 'earlier' : 'more'} message${count === 1 ? '' : 's'}`;
  return (
    <div ref={marker} className="flex justify-center" data-testid={`${direction}-messages`}>
      <Button variant="ghost" size="sm" loading={busy} disabled={!waiting} onClick={() => void onLoad()}>
        {busy ? `Loading ${direction === 'earlier' ? 'earlier' : 'more'} messages…` : `Show ${what}`}
      </Button>
    </div>
  );
}
