'use client';

import { useCallback, useRef, useState } from 'react';
import useSWR from 'swr';

import { api, ApiError } from '../api';
import type { ServerPrompts, ServerResources } from './composer-offers';

type Offer<T> = { status: 'idle' } | { status: 'loading' } | { status: 'ready'; servers: T[] } | { status: 'failed'; message: string };
type OfferKind = 'prompts' | 'resources';

/** A listing is asked again when a menu opens after this long (a server may have changed what it offers). */
const FRESH_MS = 30_000;

/**
 * What the person's servers offer the composer, read when a menu first opens (not on every page
 * load: asking every server costs a round trip each) and again when it opens after a while.
 * Through SWR, keyed by conversation: a listing asked for one conversation never lands in another's
 * menu, and what was listed stays shown while it is asked again.
 */
export function useComposerOffers(conversationId: string) {
  const [wanted, setWanted] = useState({ prompts: false, resources: false });
  const prompts = useOffer<ServerPrompts>(conversationId, 'prompts', wanted.prompts);
  const resources = useOffer<ServerResources>(conversationId, 'resources', wanted.resources);
  const { refresh: refreshPrompts } = prompts;
  const { refresh: refreshResources } = resources;

  const load = useCallback(
    (kind: OfferKind) => {
      setWanted((w) => (w[kind] ? w : { ...w, [kind]: true }));
      (kind === 'prompts' ? refreshPrompts : refreshResources)();
    },
    [refreshPrompts, refreshResources],
  );
  return { prompts: prompts.offer, resources: resources.offer, load };
}

function useOffer<T>(conversationId: string, kind: OfferKind, wanted: boolean) {
  // When the listing last arrived; 0 after a failure, so that the next opening asks again at once.
  const listedAt = useRef(0);
  const { data, error, mutate } = useSWR<T[], unknown>(
    wanted && conversationId ? `/api/conversations/${conversationId}/${kind}` : null,
    async (path: string) => (await api<{ servers: T[] }>(path)).servers,
    {
      revalidateOnFocus: false,
      revalidateOnReconnect: false,
      revalidateIfStale: false,
      shouldRetryOnError: false,
      dedupingInterval: FRESH_MS,
      onSuccess: () => void (listedAt.current = Date.now()),
      onError: () => void (listedAt.current = 0),
    },
  );
  // A menu opened again: a listing older than FRESH_MS, or one that failed, is asked again.
  const refresh = useCallback(() => {
    if (!wanted) return;
    if (listedAt.current === 0 ? error !== undefined : Date.now() - listedAt.current >= FRESH_MS) void mutate();
  }, [wanted, error, mutate]);
  let offer: Offer<T>;
  if (!wanted) offer = { status: 'idle' };
  else if (data) offer = { status: 'ready', servers: data };
  else if (error !== undefined)
    offer = { status: 'failed', message: error instanceof ApiError ? error.message : `Could not list the ${kind} of your servers.` };
  else offer = { status: 'loading' };
  return { offer, refresh };
}
