'use client';

import { Inbox, Menu, SquarePen } from 'lucide-react';
import Link from 'next/link';
import { usePathname } from 'next/navigation';
import { useCallback, useEffect, useRef, useState } from 'react';

import { ComposerDraftProvider } from '../composer/composer-draft';
import { InboxProvider, useInbox } from '../inbox/inbox-context';
import type { ConversationSummary } from '../types';
import { cx, IconButton, iconButtonClasses } from '../ui/index';
import { ConversationListProvider, useConversationList } from './conversation-list';
import { HeaderSlotContext } from './header-slot';
import { Sidebar } from './sidebar';

/** The phone top bar's words for the pages that are not a conversation (the sidebar links to them). */
const PAGE_TITLES: Record<string, string> = {
  '/servers': 'Servers',
  '/account': 'Account',
  '/activity': 'Activity',
  '/shares': 'Shared links',
  '/inbox': 'Other clients',
};

/** The signed-in frame: sidebar (a drawer on small screens) and the page. */
export function ChatShell({
  conversations,
  ...frame
}: {
  conversations: ConversationSummary[];
  user: { email: string; name: string | null };
  modelLabel: string;
  children: React.ReactNode;
}) {
  return (
    <ConversationListProvider initial={conversations}>
      <InboxProvider>
        <ShellFrame {...frame} />
      </InboxProvider>
    </ConversationListProvider>
  );
}

function ShellFrame({
  user,
  modelLabel,
  children,
}: {
  user: { email: string; name: string | null };
  modelLabel: string;
  children: React.ReactNode;
}) {
  const { conversations } = useConversationList();
  const waiting = useInbox().calls?.length ?? 0;
  const [open, setOpen] = useState(false);
  const [headerSlot, setHeaderSlot] = useState<HTMLElement | null>(null);
  const opener = useRef<HTMLButtonElement>(null);
  const pathname = usePathname();
  const current = conversations.find((c) => pathname === `/c/${c.id}`);

  // Closed from inside (Escape, the close button): the keyboard goes back to the menu button,
  // once the page behind is no longer inert (after the render that closes the drawer).
  const refocusOpener = useRef(false);
  const close = useCallback(() => {
    refocusOpener.current = true;
    setOpen(false);
  }, []);
  useEffect(() => {
    if (open || !refocusOpener.current) return;
    refocusOpener.current = false;
    opener.current?.focus();
  }, [open]);
  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && close();
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [open, close]);
  // Grown past the drawer's breakpoint (a rotated tablet): the sidebar is simply there.
  useEffect(() => {
    const wide = window.matchMedia('(min-width: 48rem)');
    const onChange = () => wide.matches && setOpen(false);
    wide.addEventListener('change', onChange);
    return () => wide.removeEventListener('change', onChange);
  }, []);

  return (
    <ComposerDraftProvider>
      <div className="flex h-dvh bg-canvas">
        <Sidebar
          conversations={conversations}
          user={user}
          modelLabel={modelLabel}
          open={open}
          onClose={close}
          onNavigate={() => setOpen(false)}
        />
        <div
          className={cx(
            'fixed inset-0 z-20 bg-overlay transition-opacity duration-200 md:hidden',
            open ? 'opacity-100' : 'pointer-events-none opacity-0',
          )}
          onClick={() => setOpen(false)}
          aria-hidden
        />
        {/* While the drawer is open the page behind it is out of reach, for the keyboard too. */}
        <main className="flex min-w-0 flex-1 flex-col" inert={open}>
          <header
            className={cx(
              'flex shrink-0 items-center gap-1 border-b border-border bg-canvas px-1.5 py-1 md:hidden',
              'pt-[max(env(safe-area-inset-top),0.25rem)]',
            )}
          >
            <IconButton
              ref={opener}
              icon={Menu}
              label="Open conversations"
              size="md"
              aria-expanded={open}
              aria-controls="sidebar"
              onClick={() => setOpen(true)}
            />
            <span className="min-w-0 flex-1 truncate text-center text-[15px] font-semibold">
              {current?.title ?? PAGE_TITLES[pathname] ?? 'Switchboard'}
            </span>
            <span ref={setHeaderSlot} className="contents" />
            {/* On a phone the sidebar is a drawer: calls of other clients waiting for the person show up here too. */}
            {waiting > 0 && pathname !== '/inbox' && (
              <Link
                href="/inbox"
                aria-label={`Other clients: ${waiting} waiting for your decision`}
                title="Other clients"
                className={cx(iconButtonClasses({ size: 'md' }), 'relative')}
              >
                <Inbox className="size-5" aria-hidden />
                <span
                  className={cx(
                    'absolute right-0.5 top-0.5 min-w-4 rounded-full bg-warning px-1',
                    'text-center text-[10px] font-semibold leading-4 text-canvas',
                  )}
                >
                  {waiting}
                </span>
              </Link>
            )}
            <Link href="/" aria-label="New chat" title="New chat" className={iconButtonClasses({ size: 'md' })}>
              <SquarePen className="size-5" aria-hidden />
            </Link>
          </header>
          <HeaderSlotContext.Provider value={headerSlot}>
            <div className="min-h-0 flex-1">{children}</div>
          </HeaderSlotContext.Provider>
        </main>
      </div>
    </ComposerDraftProvider>
  );
}
