'use client';

import { createContext, useContext, useMemo, useRef } from 'react';

import { ComposerAttachProvider } from './attachment-chips';

type Fill = (text: string) => void;
type ComposerDraft = { register: (fill: Fill) => () => void; fill: Fill };

const ComposerDraftContext = createContext<ComposerDraft | null>(null);

/**
 * Lets something outside the composer put text into it (the empty chat's examples), without
 * lifting the composer's state into every page that shows one. The mounted composer registers.
 */
export function ComposerDraftProvider({ children }: { children: React.ReactNode }) {
  const current = useRef<Fill | null>(null);
  const value = useMemo<ComposerDraft>(
    () => ({
      register(fill) {
        current.current = fill;
        return () => {
          if (current.current === fill) current.current = null;
        };
      },
      fill(text) {
        current.current?.(text);
      },
    }),
    [],
  );
  return (
    <ComposerDraftContext.Provider value={value}>
      {/* Resources too: a tool result's resource link goes to the composer the same way (attachment-chips.tsx). */}
      <ComposerAttachProvider>{children}</ComposerAttachProvider>
    </ComposerDraftContext.Provider>
  );
}

/** Null outside a ComposerDraftProvider (then there is no composer to fill). */
export function useComposerDraft(): ComposerDraft | null {
  return useContext(ComposerDraftContext);
}
