'use client';

import { Share2 } from 'lucide-react';

import { HeaderButton } from '@/app/_components/ui';

/** Opens the Share dialog; beside the Tools button in the conversation's header (icon only on a phone). */
export function ShareButton({ open, onOpen, className }: { open: boolean; onOpen: () => void; className?: string }) {
  return (
    <HeaderButton
      text="Share"
      icon={Share2}
      open={open}
      onOpen={onOpen}
      iconOnlyOnPhone
      data-testid="share-button"
      aria-label="Share"
      title="Share"
      className={className}
    />
  );
}
