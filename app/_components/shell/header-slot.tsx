'use client';

import { createContext, useContext } from 'react';
import { createPortal } from 'react-dom';

/**
 * A place in the shell's phone header where the page may put its own buttons (the conversation's
 * Tools button): the shell lives in the layout, the page's state in the page.
 */
export const HeaderSlotContext = createContext<HTMLElement | null>(null);

/** Renders `children` into the shell's phone header (nothing on a page outside the shell). */
export function InHeaderSlot({ children }: { children: React.ReactNode }) {
  const slot = useContext(HeaderSlotContext);
  return slot ? createPortal(children, slot) : null;
}
