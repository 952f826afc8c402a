'use client';

import { useState } from 'react';

import { Sidebar } from './sidebar';
import type { ConversationSummary } from './types';

/** The signed-in frame: sidebar (a drawer on small screens) and the page. */
export function ChatShell({
  conversations,
  user,
  modelLabel,
  children,
}: {
  conversations: ConversationSummary[];
  user: { email: string; name: string | null };
  modelLabel: string;
  children: React.ReactNode;
}) {
  const [open, setOpen] = useState(false);
  return (
    <div className="flex h-dvh">
      <Sidebar conversations={conversations} user={user} modelLabel={modelLabel} open={open} onNavigate={() => setOpen(false)} />
      {open && <div className="fixed inset-0 z-20 bg-black/30 md:hidden" onClick={() => setOpen(false)} aria-hidden />}
      <main className="flex min-w-0 flex-1 flex-col">
        <div className="flex items-center gap-3 border-b border-stone-200 bg-white px-3 py-2 md:hidden">
          <button
            type="button"
            onClick={() => setOpen(true)}
            aria-label="Open conversations"
            className="rounded-md px-2 py-1 text-lg leading-none text-stone-700 hover:bg-stone-100"
          >
            ☰
          </button>
          <span className="font-semibold">Switchboard</span>
        </div>
        <div className="min-h-0 flex-1">{children}</div>
      </main>
    </div>
  );
}
