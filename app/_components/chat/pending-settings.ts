'use client';

import { useCallback, useMemo, useRef } from 'react';

/**
 * The conversation's settings being saved right now (the model, extended thinking). A message sent
 * right after a change must go out under the new setting, so sending waits for these first: the
 * server copies the settings onto the run when the message arrives.
 */
export function usePendingSettings() {
  const pending = useRef(new Set<Promise<unknown>>());
  /** Registers a save; it is forgotten once it settles, whichever way. */
  const track = useCallback(<T>(save: Promise<T>): Promise<T> => {
    const settled = save.then(
      () => undefined,
      () => undefined,
    );
    pending.current.add(settled);
    void settled.finally(() => pending.current.delete(settled));
    return save;
  }, []);
  /** Resolves when every save started so far has settled (at once when none is). */
  const settled = useCallback(async () => {
    while (pending.current.size) await Promise.all([...pending.current]);
  }, []);
  return useMemo(() => ({ track, settled }), [track, settled]);
}
