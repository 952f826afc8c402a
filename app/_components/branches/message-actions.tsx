'use client';

import { Pencil, RefreshCw } from 'lucide-react';
import { useState } from 'react';

import { cx, Notice } from '../ui';
import { BlockableIconButton } from './blockable-icon-button';
import { BranchSwitcher } from './branch-switcher';

/** What the conversation page lets a person do with one message's branches (none on a shared page). */
export interface MessageBranching {
  /** Where this message stands among the versions of its turn; null when it is the only one. */
  version: { position: number; count: number } | null;
  /** Why nothing can be changed now (a turn is active), or null. */
  blockedReason: string | null;
  /** Shows the version before or after this one; answers with an error to show, or null. */
  onStep(direction: -1 | 1): Promise<string | null>;
  /** The person's own message: opens the editor in its place. */
  onEdit?(): void;
  /** The Edit button's id, so focus can come back to it when the editor is cancelled. */
  editButtonId?: string;
  /** An answer: asks for another one beside it; answers with an error to show, or null. */
  onRegenerate?(): Promise<string | null>;
}

/**
 * The row under a message: its version switcher, always shown, at the message's edge; its actions (edit or
 * regenerate, and `children`, the copy button), quiet until the message is hovered or focused on
 * a desktop and always there on a phone. A refused action says why right below.
 */
export function MessageActions({
  align,
  branching,
  children,
}: {
  align: 'start' | 'end';
  branching?: MessageBranching;
  children?: React.ReactNode;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = async (action: () => Promise<string | null>) => {
    setBusy(true);
    setError(null);
    const failed = await action();
    setBusy(false);
    setError(failed);
  };
  const blockedReason = branching?.blockedReason ?? null;
  const switcher = branching?.version && (
    <BranchSwitcher
      position={branching.version.position}
      count={branching.version.count}
      blockedReason={blockedReason}
      busy={busy}
      onStep={(direction) => void run(() => branching.onStep(direction))}
    />
  );
  const actions = (
    <div
      className={cx(
        'flex md:opacity-0 md:transition-opacity',
        'md:group-focus-within/message:opacity-100 md:group-hover/message:opacity-100',
      )}
    >
      {align === 'end' && branching?.onEdit && (
        <BlockableIconButton
          id={branching.editButtonId}
          icon={Pencil}
          label="Edit message"
          blockedReason={blockedReason}
          onClick={branching.onEdit}
        />
      )}
      {children}
      {branching?.onRegenerate && (
        <BlockableIconButton
          icon={RefreshCw}
          label="Regenerate answer"
          blockedReason={blockedReason}
          loading={busy}
          onClick={() => void run(branching.onRegenerate!)}
        />
      )}
    </div>
  );
  return (
    <>
      <div className={cx('-mt-2 flex items-center gap-1', align === 'end' ? '-mr-2 justify-end' : '-ml-2')}>
        {/* The switcher keeps to the message's edge, where it stays put while the actions fade in. */}
        {align === 'end' ? (
          <>
            {actions}
            {switcher}
          </>
        ) : (
          <>
            {switcher}
            {actions}
          </>
        )}
      </div>
      {error && (
        <Notice tone="error" className={align === 'end' ? 'max-w-[85%] md:max-w-[75%]' : undefined}>
          {error}
        </Notice>
      )}
    </>
  );
}
