'use client';

import { History, Inbox, LogOut, Pencil, PlugZap, Server, Share2, SquarePen, Trash2, UserCog, X } from 'lucide-react';
import Link from 'next/link';
import { usePathname, useRouter } from 'next/navigation';
import { useEffect, useRef, useState } from 'react';

import { api, ApiError } from '../api';
import { useInbox } from '../inbox/inbox-context';
import { ThemeToggle } from '../theme/theme-toggle';
import type { ConversationSummary } from '../types';
import { Button, buttonClasses, ConfirmDialog, cx, Field, IconButton, Input, Notice } from '../ui/index';
import { useCsrfToken } from '../use-csrf-token';
import { useConversationList } from './conversation-list';
import { ConversationSearch } from './conversation-search';
import { Logo } from './logo';

/** The pages beside the conversations (their phone titles are in chat-shell.tsx). */
const NAV = [
  { href: '/servers', label: 'Servers', icon: Server },
  { href: '/activity', label: 'Activity', icon: History },
  { href: '/shares', label: 'Shared links', icon: Share2 },
  { href: '/inbox', label: 'Other clients', icon: Inbox },
] as const;

export function Sidebar({
  conversations,
  user,
  modelLabel,
  open,
  onClose,
  onNavigate,
}: {
  conversations: ConversationSummary[];
  user: { email: string; name: string | null };
  modelLabel: string;
  /** The drawer is open (small screens; on wide ones the sidebar always shows). */
  open: boolean;
  onClose: () => void;
  onNavigate: () => void;
}) {
  const pathname = usePathname();
  const router = useRouter();
  const { reload } = useConversationList();
  const csrfToken = useCsrfToken();
  const waiting = useInbox().calls?.length ?? 0;
  const closeButton = useRef<HTMLButtonElement>(null);
  const [deleting, setDeleting] = useState<ConversationSummary | null>(null);
  const [deleteBusy, setDeleteBusy] = useState(false);
  const [deleteError, setDeleteError] = useState('');

  // The drawer took the screen: the keyboard starts inside it.
  useEffect(() => {
    if (open) closeButton.current?.focus();
  }, [open]);

  async function remove(conversation: ConversationSummary) {
    setDeleteBusy(true);
    setDeleteError('');
    try {
      await api(`/api/conversations/${conversation.id}`, { method: 'DELETE' });
      setDeleting(null);
      if (pathname === `/c/${conversation.id}`) router.push('/');
      await reload();
    } catch (err) {
      setDeleteError(err instanceof ApiError ? err.message : 'Could not delete.');
    } finally {
      setDeleteBusy(false);
    }
  }

  return (
    <aside
      id="sidebar"
      aria-label="Conversations"
      className={cx(
        'fixed inset-y-0 left-0 z-30 flex w-72 max-w-[85vw] flex-col border-r border-border bg-surface-sunken',
        'duration-200 ease-out md:static md:visible md:translate-x-0 md:transition-none',
        // Visible at once when opening (so focus can move in), hidden only once it has slid out.
        open
          ? 'visible translate-x-0 shadow-raised transition-[translate] md:shadow-none'
          : 'invisible -translate-x-full transition-[translate,visibility]',
      )}
    >
      <div className="flex items-center justify-between gap-2 px-3 pb-2 pt-[max(env(safe-area-inset-top),0.75rem)]">
        <Link href="/" onClick={onNavigate} className="rounded-control px-1.5 py-1">
          <Logo />
        </Link>
        <IconButton ref={closeButton} icon={X} label="Close conversations" onClick={onClose} className="md:hidden" />
      </div>
      <div className="px-3 pt-1">
        <Link href="/" onClick={onNavigate} className={cx(buttonClasses({ variant: 'secondary' }), 'w-full justify-start')}>
          <SquarePen className="size-4" aria-hidden />
          New chat
        </Link>
        <nav aria-label="Pages" className="mt-1">
          {NAV.map(({ href, label, icon: Icon }) => (
            <Link
              key={href}
              href={href}
              onClick={onNavigate}
              aria-current={pathname === href ? 'page' : undefined}
              className={cx(buttonClasses({ variant: 'ghost' }), 'w-full justify-start', pathname === href && 'bg-surface-hover text-fg')}
            >
              <Icon className="size-4" aria-hidden />
              {label}
              {href === '/inbox' && waiting > 0 && (
                <span
                  className="ml-auto rounded-full bg-warning/20 px-2 py-0.5 text-xs font-medium text-warning-text"
                  data-testid="inbox-count"
                >
                  {waiting}
                  <span className="sr-only"> waiting for your decision</span>
                </span>
              )}
            </Link>
          ))}
        </nav>
      </div>
      <ConversationSearch onNavigate={onNavigate}>
        <nav className="mt-4 min-h-0 flex-1 overflow-y-auto px-2 pb-3">
          <h2 className="px-3 pb-1.5 text-xs font-medium text-faint">Recent</h2>
          {conversations.length === 0 ? (
            <p className="px-3 py-2 text-sm text-muted">No conversations yet.</p>
          ) : (
            <ul className="space-y-px">
              {conversations.map((c) => (
                <ConversationItem
                  key={c.id}
                  conversation={c}
                  active={pathname === `/c/${c.id}`}
                  onNavigate={onNavigate}
                  onDelete={() => {
                    setDeleteError('');
                    setDeleting(c);
                  }}
                />
              ))}
            </ul>
          )}
        </nav>
      </ConversationSearch>
      <ConfirmDialog
        open={deleting !== null}
        onClose={() => setDeleting(null)}
        title={`Delete “${deleting?.title ?? ''}”?`}
        description="Its messages are deleted for good. The activity log keeps the record of its tool calls."
        confirmLabel="Delete"
        tone="danger"
        busy={deleteBusy}
        onConfirm={() => deleting && void remove(deleting)}
      >
        {deleteError && <Notice tone="error">{deleteError}</Notice>}
      </ConfirmDialog>
      <div className="border-t border-border px-3 pb-[max(env(safe-area-inset-bottom),0.75rem)] pt-3">
        <Link href="/account" onClick={onNavigate} className="flex items-center gap-3 rounded-control px-1 py-1 hover:bg-surface-hover">
          {/* Named by what it shows, with "Account" first for screen readers (the visible text stays part of the name). */}
          <span className="sr-only">Account:</span>
          <span
            className="flex size-8 shrink-0 items-center justify-center rounded-full bg-accent-soft text-sm font-semibold text-accent-text"
            aria-hidden
          >
            {(user.name || user.email).trim().charAt(0).toUpperCase()}
          </span>
          <div className="min-w-0 flex-1">
            <p className="truncate text-sm font-medium" title={user.email}>
              {user.name || user.email}
            </p>
            <p className="truncate text-xs text-faint" data-testid="model-label">
              {modelLabel}
            </p>
          </div>
          <UserCog aria-hidden className="size-4 shrink-0 text-faint" />
        </Link>
        <div className="mt-3 flex items-center justify-between gap-2">
          <ThemeToggle />
          <form method="post" action="/api/auth/signout">
            <input type="hidden" name="csrfToken" value={csrfToken} />
            <input type="hidden" name="callbackUrl" value="/sign-in" />
            <Button type="submit" variant="ghost" size="sm" icon={LogOut} disabled={!csrfToken}>
              Sign out
            </Button>
          </form>
        </div>
      </div>
    </aside>
  );
}

function ConversationItem({
  conversation,
  active,
  onNavigate,
  onDelete,
}: {
  conversation: ConversationSummary;
  active: boolean;
  onNavigate: () => void;
  onDelete: () => void;
}) {
  const { reload } = useConversationList();
  const [renaming, setRenaming] = useState(false);
  const [title, setTitle] = useState(conversation.title);
  const [error, setError] = useState('');

  async function rename() {
    const next = title.trim();
    if (!next || next === conversation.title) return setRenaming(false);
    try {
      await api(`/api/conversations/${conversation.id}`, { method: 'PATCH', body: { title: next } });
      setRenaming(false);
      setError('');
      await reload();
    } catch (err) {
      setError(err instanceof ApiError ? err.message : 'Could not rename.');
    }
  }

  if (renaming) {
    return (
      <li className="px-1 py-0.5">
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void rename();
          }}
        >
          <Field label="New title" hideLabel id={`rename-${conversation.id}`} error={error || undefined}>
            <Input
              autoFocus
              value={title}
              maxLength={200}
              onChange={(e) => setTitle(e.target.value)}
              onBlur={() => void rename()}
              onKeyDown={(e) => e.key === 'Escape' && (setTitle(conversation.title), setRenaming(false))}
              className="h-9 px-2.5"
            />
          </Field>
        </form>
      </li>
    );
  }

  return (
    <li
      className={cx(
        'group relative flex items-center rounded-control',
        active ? 'bg-surface-hover' : 'hover:bg-surface-hover md:focus-within:bg-surface-hover',
      )}
    >
      <Link
        href={`/c/${conversation.id}`}
        onClick={onNavigate}
        aria-current={active ? 'page' : undefined}
        className={cx(
          'min-w-0 flex-1 truncate rounded-control py-2 pl-3 pr-2 text-sm max-md:py-2.5',
          active ? 'font-medium text-fg' : 'text-muted group-hover:text-fg',
        )}
      >
        {conversation.startedBy && (
          <PlugZap aria-hidden className="mr-1.5 inline size-3.5 -translate-y-px text-faint" data-testid="started-by-client" />
        )}
        {conversation.title}
        {conversation.startedBy && <span className="sr-only"> (started by the MCP client “{conversation.startedBy}”)</span>}
      </Link>
      {/* On a desktop the actions appear over the end of the title on hover or focus; on a phone they always show. */}
      <span
        className={cx(
          'flex shrink-0 items-center pr-1',
          'md:absolute md:inset-y-0 md:right-0 md:rounded-r-control md:bg-linear-to-l md:from-surface-hover md:from-70% md:pl-6',
          'md:opacity-0 md:group-focus-within:opacity-100 md:group-hover:opacity-100',
        )}
      >
        <IconButton icon={Pencil} label={`Rename “${conversation.title}”`} onClick={() => setRenaming(true)} />
        <IconButton icon={Trash2} label={`Delete “${conversation.title}”`} onClick={onDelete} />
      </span>
    </li>
  );
}
