'use client';

import { ChevronLeft, ChevronRight } from 'lucide-react';

import { BlockableIconButton } from './blockable-icon-button';

/** `‹ 2 / 3 ›`: which version of a message this is, and a step to the one before or after it. */
export function BranchSwitcher({
  position,
  count,
  blockedReason,
  busy,
  onStep,
}: {
  /** 1-based. */
  position: number;
  count: number;
  blockedReason: string | null;
  /** A step is on its way: both arrows wait for it (one click, one switch). */
  busy: boolean;
  onStep: (direction: -1 | 1) => void;
}) {
  return (
    <div role="group" aria-label={`Version ${position} of ${count}`} className="flex items-center" data-testid="branch-switcher">
      <BlockableIconButton
        icon={ChevronLeft}
        label="Previous version"
        blockedReason={blockedReason}
        disabled={position <= 1 || busy}
        onClick={() => onStep(-1)}
      />
      <span className="min-w-10 text-center text-xs tabular-nums text-muted">
        {position} / {count}
      </span>
      <BlockableIconButton
        icon={ChevronRight}
        label="Next version"
        blockedReason={blockedReason}
        disabled={position >= count || busy}
        onClick={() => onStep(1)}
      />
    </div>
  );
}
