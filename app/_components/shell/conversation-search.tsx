'use client';

import { Search, X } from 'lucide-react';
import Link from 'next/link';
import { useEffect, useState } from 'react';

import type { SearchResult } from '@/lib/chat/search';

import { api, ApiError } from '../api';
import { Field, IconButton, Input } from '../ui/index';

const DEBOUNCE_MS = 200;

/**
 * Search over the person's conversations (titles and what was written in them). While there is a
 * query, the results take the place of the recent list (`children`).
 */
export function ConversationSearch({ onNavigate, children }: { onNavigate: () => void; children: React.ReactNode }) {
  const [query, setQuery] = useState('');
  const [results, setResults] = useState<{ for: string; items: SearchResult[] } | null>(null);
  const [error, setError] = useState('');
  const q = query.trim();

  useEffect(() => {
    if (!q) return;
    let cancelled = false;
    const timer = setTimeout(() => {
      api<{ conversations: SearchResult[] }>(`/api/conversations?q=${encodeURIComponent(q)}`)
        .then((res) => !cancelled && (setResults({ for: q, items: res.conversations }), setError('')))
        .catch((err) => !cancelled && setError(err instanceof ApiError ? err.message : 'Could not search.'));
    }, DEBOUNCE_MS);
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
  }, [q]);

  return (
    <>
      <div className="relative px-3 pt-3">
        <Field label="Search conversations" hideLabel id="conversation-search" error={error || undefined}>
          <Input
            type="search"
            value={query}
            maxLength={200}
            placeholder="Search"
            onChange={(e) => setQuery(e.target.value)}
            onKeyDown={(e) => e.key === 'Escape' && setQuery('')}
            className="h-9 pl-8 pr-9"
          />
        </Field>
        <Search className="pointer-events-none absolute left-5.5 top-5.5 size-4 text-faint" aria-hidden />
        {query && <IconButton icon={X} size="sm" label="Clear search" onClick={() => setQuery('')} className="absolute right-4 top-3.5" />}
      </div>
      {!q ? (
        children
      ) : (
        <nav aria-label="Search results" className="mt-3 min-h-0 flex-1 overflow-y-auto px-2 pb-3">
          <h2 className="px-3 pb-1.5 text-xs font-medium text-faint" role="status">
            {results?.for !== q ? 'Searching…' : results.items.length ? `${results.items.length} found` : 'Nothing found'}
          </h2>
          {results?.for === q && (
            <ul className="space-y-px">
              {results.items.map((r) => (
                <li key={r.id}>
                  <Link href={`/c/${r.id}`} onClick={onNavigate} className="block rounded-control px-3 py-2 hover:bg-surface-hover">
                    <span className="block truncate text-sm text-fg">{r.title}</span>
                    {r.snippet && <span className="mt-0.5 line-clamp-2 block text-xs text-muted">{r.snippet}</span>}
                  </Link>
                </li>
              ))}
            </ul>
          )}
        </nav>
      )}
    </>
  );
}
