'use client';

import { Wrench } from 'lucide-react';

import { cx } from '@/app/_components/ui';

/** Opens the Tools panel; shows how many tools the model is offered here. */
export function ToolsButton({
  enabled,
  open,
  onOpen,
  className,
}: {
  enabled: number | null;
  open: boolean;
  onOpen: () => void;
  className?: string;
}) {
  // The name is the visible text ("Tools 3") and a word for screen readers: "Tools 3 on".
  return (
    <button
      type="button"
      aria-haspopup="dialog"
      aria-expanded={open}
      onClick={onOpen}
      data-testid="tools-button"
      className={cx(
        'inline-flex h-8 shrink-0 items-center gap-1.5 rounded-control px-2.5 text-[13px] font-medium text-muted transition-colors',
        'hover:bg-surface-hover hover:text-fg max-md:h-10',
        className,
      )}
    >
      <Wrench className="size-4" aria-hidden />
      Tools
      {enabled !== null && (
        <>
          {' '}
          <span className="min-w-5 rounded-full bg-surface-hover px-1.5 text-center text-xs leading-5 text-fg">{enabled}</span>
          <span className="sr-only"> on</span>
        </>
      )}
    </button>
  );
}
