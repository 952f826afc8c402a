import type { LucideIcon } from 'lucide-react';

import { BUTTON_VARIANTS, type ButtonVariant } from './button';
import { cx } from './cx';
import { Spinner } from './spinner';

const SIZES = {
  // 32 px on a desktop, 40 px wherever a finger does the tapping.
  sm: { box: 'size-8 max-md:size-10 pointer-coarse:size-10', icon: 'size-4' },
  md: { box: 'size-10', icon: 'size-5' },
} as const;

export type IconButtonProps = Omit<React.ButtonHTMLAttributes<HTMLButtonElement>, 'children' | 'aria-label'> & {
  /** What the button does, for screen readers and as the tooltip: required, there is no visible text. */
  label: string;
  icon: LucideIcon;
  variant?: ButtonVariant;
  size?: keyof typeof SIZES;
  /** A round button (the composer's Send and Stop). */
  round?: boolean;
  loading?: boolean;
  ref?: React.Ref<HTMLButtonElement>;
};

/** Classes for a Link that should look like an IconButton (give it an aria-label and the icon). */
export function iconButtonClasses({
  variant = 'ghost',
  size = 'sm',
  round,
}: { variant?: ButtonVariant; size?: keyof typeof SIZES; round?: boolean } = {}) {
  return cx(
    'inline-flex shrink-0 items-center justify-center transition-colors disabled:pointer-events-none disabled:opacity-40',
    '[&>svg]:shrink-0',
    round ? 'rounded-full' : 'rounded-control',
    SIZES[size].box,
    BUTTON_VARIANTS[variant],
  );
}

export function IconButton({
  label,
  icon: Icon,
  variant = 'ghost',
  size = 'sm',
  round,
  loading,
  className,
  type = 'button',
  disabled,
  ...rest
}: IconButtonProps) {
  return (
    <button
      type={type}
      aria-label={label}
      title={label}
      disabled={disabled || loading}
      aria-busy={loading || undefined}
      className={cx(iconButtonClasses({ variant, size, round }), className)}
      {...rest}
    >
      {loading ? <Spinner /> : <Icon className={SIZES[size].icon} aria-hidden />}
    </button>
  );
}
