'use client';

import { Share2 } from 'lucide-react';

import { cx } from '@/app/_components/ui';

/** Opens the Share dialog; beside the Tools button in the conversation's header (icon only on a phone). */
export function ShareButton({ open, onOpen, className }: { open: boolean; onOpen: () => void; className?: string }) {
  return (
    <button
      type="button"
      aria-haspopup="dialog"
      aria-expanded={open}
      onClick={onOpen}
      data-testid="share-button"
      aria-label="Share"
      title="Share"
      className={cx(
        'inline-flex h-8 shrink-0 items-center gap-1.5 rounded-control px-2.5 text-[13px] font-medium text-muted transition-colors',
        'hover:bg-surface-hover hover:text-fg max-md:h-10 max-md:px-2.5',
        className,
      )}
    >
      <Share2 className="size-4" aria-hidden />
      <span className="max-md:hidden">Share</span>
    </button>
  );
}
