'use client';

import { useCallback, useEffect, useRef, useState } from 'react';

/** Within this many pixels of the end, the view counts as "at the latest". */
const NEAR_END_PX = 80;

/**
 * Auto-scroll for a growing transcript that respects the reader: while the view is at the end it
 * follows new content; once the person scrolls up it stays where they are and `behind` says new
 * content arrived below, so the page can offer "Jump to latest".
 */
export function useStickToBottom<T extends HTMLElement>(contentKey: unknown) {
  const scroller = useRef<T>(null);
  const atEnd = useRef(true);
  /** Where this hook last put the view: a position above it means the person moved. */
  const pinnedTop = useRef(0);
  const [behind, setBehind] = useState(false);

  const onScroll = useCallback(() => {
    const el = scroller.current;
    if (!el) return;
    atEnd.current = el.scrollHeight - el.scrollTop - el.clientHeight <= NEAR_END_PX;
    if (atEnd.current) {
      pinnedTop.current = el.scrollTop;
      setBehind(false);
    }
  }, []);

  useEffect(() => {
    const el = scroller.current;
    if (!el) return;
    // A scroll event comes only with the next frame: when new text arrives between the person's
    // scroll up and that event, the position says what `atEnd` does not know yet.
    const movedUp = el.scrollTop < pinnedTop.current - 2 && el.scrollHeight - el.scrollTop - el.clientHeight > NEAR_END_PX;
    if (movedUp) atEnd.current = false;
    if (atEnd.current) {
      el.scrollTop = el.scrollHeight;
      pinnedTop.current = el.scrollTop;
    } else setBehind(true);
  }, [contentKey]);

  const jumpToLatest = useCallback(() => {
    const el = scroller.current;
    if (!el) return;
    el.scrollTo({ top: el.scrollHeight, behavior: 'smooth' });
    // The smooth scroll starts from here: not a move up by the person.
    pinnedTop.current = 0;
    atEnd.current = true;
    setBehind(false);
  }, []);

  return { scroller, onScroll, behind, jumpToLatest };
}
