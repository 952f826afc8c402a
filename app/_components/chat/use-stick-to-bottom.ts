'use client';

import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';

/** Within this many pixels of the end, the view counts as "at the latest". */
const NEAR_END_PX = 80;

/**
 * Auto-scroll for a growing transcript that respects the reader: while the view is at the end it
 * follows new content; once the person scrolls up it stays where they are and `behind` says new
 * content arrived below, so the page can offer "Jump to latest".
 *
 * `drawn`, the messages on screen: when older ones are drawn above them (an earlier page, or the
 * older messages drawn after the page's end), the view moves down by what was added above, so
 * what the person reads stays where it is. Chromium and Firefox anchor the scroll by themselves,
 * and then the position is already this one; Safari does not. A branch shown in place of the
 * messages (the first one not kept) is no addition above and moves nothing.
 */
export function useStickToBottom<T extends HTMLElement>(contentKey: unknown, drawn: readonly { id: string }[]) {
  const scroller = useRef<T>(null);
  const atEnd = useRef(true);
  /** Where this hook last put the view: a position above it means the person moved. */
  const pinnedTop = useRef(0);
  const [behind, setBehind] = useState(false);
  /** The first message drawn, and the view's position and height the last time it was looked at. */
  const above = useRef<{ firstId: string | undefined; top: number; height: number } | null>(null);
  const firstId = drawn[0]?.id;

  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const prev = above.current;
    if (prev?.firstId !== undefined && prev.firstId !== firstId && drawn.findIndex((m) => m.id === prev.firstId) > 0) {
      el.scrollTop = prev.top + (el.scrollHeight - prev.height);
    }
    above.current = { firstId, top: el.scrollTop, height: el.scrollHeight };
  });

  const onScroll = useCallback(() => {
    const el = scroller.current;
    if (!el) return;
    // The person scrolls between renders: the position to keep is the one they left it at.
    if (above.current) above.current = { ...above.current, top: el.scrollTop, height: el.scrollHeight };
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
