'use client';

import { useCallback, useEffect, useState } from 'react';

import { api, ApiError } from '@/app/_components/api';

import type { ShareLinkView } from './share-view';

export interface ShareLinkActions {
  /** Moves the link's snapshot to the newest finished message. */
  update(id: string): Promise<void>;
  /** Revokes the link; it is gone from the list once the server says so. */
  revoke(id: string): Promise<void>;
}

/**
 * The owner's links from `path` (one conversation's, or all of them), with Update to newest and
 * Revoke. `key` changes when the list should be read again (the dialog opened, a link was made).
 * An action's failure is thrown in words, for the row that asked to say it.
 */
export function useShareLinks(path: string | null, key: number) {
  const [links, setLinks] = useState<ShareLinkView[] | null>(null);
  const [loadError, setLoadError] = useState('');

  // State is set only once the answer arrives (never synchronously in the effect).
  const load = useCallback(
    () =>
      path
        ? api<{ links: ShareLinkView[] }>(path).then(
            ({ links }) => (setLinks(links), setLoadError('')),
            (err) => setLoadError(err instanceof ApiError ? err.message : 'Could not load your shared links.'),
          )
        : Promise.resolve(),
    [path],
  );
  useEffect(() => {
    void load();
  }, [load, key]);

  const update = useCallback(async (id: string) => {
    const link = await api<ShareLinkView>(`/api/shares/${id}`, { method: 'PATCH', body: { snapshot: 'latest' } });
    setLinks((ls) => ls && ls.map((l) => (l.id === id ? link : l)));
  }, []);
  const revoke = useCallback(async (id: string) => {
    await api(`/api/shares/${id}`, { method: 'DELETE' });
    setLinks((ls) => ls && ls.filter((l) => l.id !== id));
  }, []);
  /** A link just made goes first (the server lists newest first too). */
  const prepend = useCallback((link: ShareLinkView) => setLinks((ls) => [link, ...(ls ?? []).filter((l) => l.id !== link.id)]), []);

  return { links, loadError, reload: load, actions: { update, revoke } satisfies ShareLinkActions, prepend };
}
