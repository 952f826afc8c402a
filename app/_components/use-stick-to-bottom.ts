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
  const [behind, setBehind] = useState(false);

  const onScroll = useCallback(() => {
    const el = scroller.current;
    if (!el) return;
    atEnd.current = el.scrollHeight - el.scrollTop - el.clientHeight <= NEAR_END_PX;
    if (atEnd.current) setBehind(false);
  }, []);

  useEffect(() => {
    const el = scroller.current;
    if (!el) return;
    if (atEnd.current) el.scrollTop = el.scrollHeight;
    else setBehind(true);
  }, [contentKey]);

  const jumpToLatest = useCallback(() => {
    const el = scroller.current;
    if (!el) return;
    el.scrollTo({ top: el.scrollHeight, behavior: 'smooth' });
    atEnd.current = true;
    setBehind(false);
  }, []);

  return { scroller, onScroll, behind, jumpToLatest };
}
