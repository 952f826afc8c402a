'use client';

import { useCallback, useRef, useState } from 'react';

import { api, ApiError } from '../api';
import type { ServerPrompts, ServerResources } from './composer-offers';

type Offer<T> = { status: 'idle' } | { status: 'loading' } | { status: 'ready'; servers: T[] } | { status: 'failed'; message: string };

/** A listing is asked again when a menu opens after this long (a server may have changed what it offers). */
const FRESH_MS = 30_000;

/**
 * What the person's servers offer the composer, read when a menu first opens (not on every page
 * load: asking every server costs a round trip each) and again when it opens after a while.
 */
export function useComposerOffers(conversationId: string) {
  const [prompts, setPrompts] = useState<Offer<ServerPrompts>>({ status: 'idle' });
  const [resources, setResources] = useState<Offer<ServerResources>>({ status: 'idle' });
  const loadedAt = useRef({ prompts: 0, resources: 0 });

  const load = useCallback(
    (kind: 'prompts' | 'resources') => {
      if (Date.now() - loadedAt.current[kind] < FRESH_MS) return;
      loadedAt.current[kind] = Date.now();
      const set = (kind === 'prompts' ? setPrompts : setResources) as (o: Offer<ServerPrompts | ServerResources>) => void;
      set({ status: 'loading' });
      api<{ servers: (ServerPrompts | ServerResources)[] }>(`/api/conversations/${conversationId}/${kind}`).then(
        ({ servers }) => set({ status: 'ready', servers }),
        (err) => {
          loadedAt.current[kind] = 0;
          set({ status: 'failed', message: err instanceof ApiError ? err.message : `Could not list the ${kind} of your servers.` });
        },
      );
    },
    [conversationId],
  );
  return { prompts, resources, load };
}

export type ComposerOffers = ReturnType<typeof useComposerOffers>;
