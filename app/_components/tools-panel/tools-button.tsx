'use client';

import { Wrench } from 'lucide-react';

import { HeaderButton } from '@/app/_components/ui';

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
    <HeaderButton text="Tools" icon={Wrench} open={open} onOpen={onOpen} data-testid="tools-button" className={className}>
      {enabled !== null && (
        <>
          {' '}
          <span className="min-w-5 rounded-full bg-surface-hover px-1.5 text-center text-xs leading-5 text-fg">{enabled}</span>
          <span className="sr-only"> on</span>
        </>
      )}
    </HeaderButton>
  );
}
