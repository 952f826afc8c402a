'use client';

import { useCallback, useState } from 'react';

import { ApiError } from './api';

/**
 * One action at a time on a card (connect, test, remove…): which is running, for its button's
 * spinner, and the last one's error in words — an API error's own message, else a generic one.
 * `act` resolves true when the action succeeded, so a dialog can close only then.
 */
export function useBusyAction<K extends string>() {
  const [busy, setBusy] = useState<K | null>(null);
  const [error, setError] = useState('');
  const act = useCallback(async (kind: K, run: () => Promise<void>): Promise<boolean> => {
    setBusy(kind);
    setError('');
    try {
      await run();
      return true;
    } catch (err) {
      setError(err instanceof ApiError ? err.message : 'Something went wrong. Try again.');
      return false;
    } finally {
      setBusy(null);
    }
  }, []);
  return { busy, error, setError, act };
}
