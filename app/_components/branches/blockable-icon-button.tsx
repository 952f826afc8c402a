'use client';

import { cx, IconButton, type IconButtonProps } from '../ui';

/**
 * An icon button that can be refused for a reason (a turn is running): it stays focusable and
 * says why, in its tooltip and to screen readers, instead of going silently grey — a disabled
 * button can be neither hovered nor reached by keyboard, so its reason would never be read.
 */
export function BlockableIconButton({
  blockedReason,
  label,
  onClick,
  className,
  ...rest
}: IconButtonProps & { blockedReason: string | null }) {
  const blocked = blockedReason !== null;
  return (
    <IconButton
      {...rest}
      label={label}
      title={blocked ? `${label}: ${blockedReason}` : label}
      aria-disabled={blocked || undefined}
      onClick={blocked ? undefined : onClick}
      className={cx('aria-disabled:cursor-not-allowed aria-disabled:opacity-40 aria-disabled:hover:bg-transparent', className)}
    />
  );
}
