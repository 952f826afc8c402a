'use client';

import Link from 'next/link';
import { usePathname, useRouter } from 'next/navigation';
import { useState } from 'react';

import { api, ApiError } from './api';
import type { ConversationSummary } from './types';
import { useCsrfToken } from './use-csrf-token';

export function Sidebar({
  conversations,
  user,
  modelLabel,
  open,
  onNavigate,
}: {
  conversations: ConversationSummary[];
  user: { email: string; name: string | null };
  modelLabel: string;
  open: boolean;
  onNavigate: () => void;
}) {
  const pathname = usePathname();
  const csrfToken = useCsrfToken();
  return (
    <aside
      className={`${open ? 'flex' : 'hidden'} fixed inset-y-0 left-0 z-30 w-72 flex-col border-r border-stone-200 bg-white
        md:static md:flex`}
      aria-label="Conversations"
    >
      <div className="flex items-center justify-between px-4 py-3">
        <Link href="/" className="flex items-center gap-2 font-semibold" onClick={onNavigate}>
          <span className="flex h-7 w-7 items-center justify-center rounded-lg bg-indigo-600 text-sm font-bold text-white" aria-hidden>
            S
          </span>
          Switchboard
        </Link>
      </div>
      <div className="px-3">
        <Link
          href="/"
          onClick={onNavigate}
          className={[
            'flex w-full items-center justify-center gap-1 rounded-lg',
            'border border-stone-300 px-3 py-2 text-sm font-medium hover:bg-stone-50',
          ].join(' ')}
        >
          <span aria-hidden>+</span> New conversation
        </Link>
      </div>
      <nav className="mt-3 min-h-0 flex-1 overflow-y-auto px-2 pb-3">
        {conversations.length === 0 ? (
          <p className="px-3 py-2 text-sm text-stone-500">No conversations yet.</p>
        ) : (
          <ul className="space-y-0.5">
            {conversations.map((c) => (
              <ConversationLink key={c.id} conversation={c} active={pathname === `/c/${c.id}`} onNavigate={onNavigate} />
            ))}
          </ul>
        )}
      </nav>
      <div className="border-t border-stone-200 px-4 py-3 text-sm">
        <p className="truncate font-medium" title={user.email}>
          {user.name || user.email}
        </p>
        <p className="mt-0.5 text-xs text-stone-500" data-testid="model-label">
          {modelLabel}
        </p>
        <Link href="/account" onClick={onNavigate} className="mt-2 block text-sm text-stone-600 underline-offset-2 hover:underline">
          Account
        </Link>
        <form method="post" action="/api/auth/signout" className="mt-2">
          <input type="hidden" name="csrfToken" value={csrfToken} />
          <input type="hidden" name="callbackUrl" value="/sign-in" />
          <button type="submit" disabled={!csrfToken} className="text-sm text-stone-600 underline-offset-2 hover:underline">
            Sign out
          </button>
        </form>
      </div>
    </aside>
  );
}

function ConversationLink({
  conversation,
  active,
  onNavigate,
}: {
  conversation: ConversationSummary;
  active: boolean;
  onNavigate: () => void;
}) {
  const router = useRouter();
  const [mode, setMode] = useState<'view' | 'rename' | 'confirm-delete'>('view');
  const [title, setTitle] = useState(conversation.title);
  const [error, setError] = useState('');

  async function rename() {
    const next = title.trim();
    if (!next || next === conversation.title) return setMode('view');
    try {
      await api(`/api/conversations/${conversation.id}`, { method: 'PATCH', body: { title: next } });
      setMode('view');
      setError('');
      router.refresh();
    } catch (err) {
      setError(err instanceof ApiError ? err.message : 'Could not rename.');
    }
  }

  async function remove() {
    try {
      await api(`/api/conversations/${conversation.id}`, { method: 'DELETE' });
      if (active) router.push('/');
      router.refresh();
    } catch (err) {
      setError(err instanceof ApiError ? err.message : 'Could not delete.');
      setMode('view');
    }
  }

  if (mode === 'rename') {
    return (
      <li className="px-1 py-1">
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void rename();
          }}
        >
          <label className="sr-only" htmlFor={`rename-${conversation.id}`}>
            New title
          </label>
          <input
            id={`rename-${conversation.id}`}
            autoFocus
            value={title}
            maxLength={200}
            onChange={(e) => setTitle(e.target.value)}
            onBlur={() => void rename()}
            onKeyDown={(e) => e.key === 'Escape' && (setTitle(conversation.title), setMode('view'))}
            className="w-full rounded-md border border-indigo-400 px-2 py-1.5 text-sm outline-none ring-2 ring-indigo-100"
          />
        </form>
        {error && <p className="px-1 pt-1 text-xs text-red-700">{error}</p>}
      </li>
    );
  }

  return (
    <li className={`group rounded-lg ${active ? 'bg-indigo-50' : 'hover:bg-stone-100'}`}>
      {mode === 'confirm-delete' ? (
        <div className="flex items-center justify-between gap-2 px-3 py-2 text-sm">
          <span className="truncate text-stone-700">Delete “{conversation.title}”?</span>
          <span className="flex shrink-0 gap-2">
            <button className="font-medium text-red-700 hover:underline" onClick={() => void remove()}>
              Delete
            </button>
            <button className="text-stone-600 hover:underline" onClick={() => setMode('view')}>
              Cancel
            </button>
          </span>
        </div>
      ) : (
        <div className="flex items-center">
          <Link
            href={`/c/${conversation.id}`}
            onClick={onNavigate}
            aria-current={active ? 'page' : undefined}
            className={`min-w-0 flex-1 truncate px-3 py-2 text-sm ${active ? 'font-medium text-indigo-900' : 'text-stone-700'}`}
          >
            {conversation.title}
          </Link>
          <span
            className={[
              'flex shrink-0 gap-0.5 pr-1',
              'opacity-100 md:opacity-0 md:group-focus-within:opacity-100 md:group-hover:opacity-100',
            ].join(' ')}
          >
            <IconButton label={`Rename “${conversation.title}”`} onClick={() => setMode('rename')}>
              <svg viewBox="0 0 20 20" className="h-3.5 w-3.5" fill="none" stroke="currentColor" strokeWidth="1.8" aria-hidden>
                <path d="M13.5 3.5l3 3L7 16H4v-3z" strokeLinejoin="round" />
              </svg>
            </IconButton>
            <IconButton label={`Delete “${conversation.title}”`} onClick={() => setMode('confirm-delete')}>
              <svg viewBox="0 0 20 20" className="h-3.5 w-3.5" fill="none" stroke="currentColor" strokeWidth="1.8" aria-hidden>
                <path d="M4 6h12M8 6V4h4v2M6 6l1 10h6l1-10" strokeLinejoin="round" strokeLinecap="round" />
              </svg>
            </IconButton>
          </span>
        </div>
      )}
      {error && <p className="px-3 pb-1 text-xs text-red-700">{error}</p>}
    </li>
  );
}

function IconButton({ label, onClick, children }: { label: string; onClick: () => void; children: React.ReactNode }) {
  return (
    <button
      type="button"
      aria-label={label}
      title={label}
      onClick={onClick}
      className="rounded-md px-1.5 py-1 text-xs text-stone-500 hover:bg-stone-200 hover:text-stone-800"
    >
      {children}
    </button>
  );
}
