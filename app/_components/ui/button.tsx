import type { LucideIcon } from 'lucide-react';

import { cx } from './cx';
import { Spinner } from './spinner';

export type ButtonVariant = 'primary' | 'secondary' | 'ghost' | 'danger' | 'danger-subtle';
export type ButtonSize = 'sm' | 'md' | 'lg';

const BASE = [
  'inline-flex shrink-0 select-none items-center justify-center gap-2 whitespace-nowrap rounded-control font-medium',
  'transition-colors disabled:pointer-events-none disabled:opacity-50 aria-busy:cursor-progress',
].join(' ');

export const BUTTON_VARIANTS: Record<ButtonVariant, string> = {
  primary: 'bg-accent text-accent-fg shadow-card hover:bg-accent-hover',
  secondary: 'border border-border-strong bg-surface text-fg shadow-card hover:bg-surface-hover',
  ghost: 'text-muted hover:bg-surface-hover hover:text-fg',
  danger: 'bg-danger text-danger-fg shadow-card hover:bg-danger-hover',
  'danger-subtle': 'border border-danger-border bg-surface text-danger-text hover:bg-danger-soft',
};

// Phones (narrow or touch) get at least 40 px of height to tap; desktops keep the compact sizes.
export const BUTTON_SIZES: Record<ButtonSize, string> = {
  sm: 'h-8 px-3 text-[13px] max-md:h-10 pointer-coarse:h-10',
  md: 'h-10 px-4 text-sm',
  lg: 'h-11 px-5 text-[15px]',
};

/** Classes for something that should look like a button but is not one (a Link to a page). */
export function buttonClasses({ variant = 'secondary', size = 'md' }: { variant?: ButtonVariant; size?: ButtonSize } = {}) {
  return cx(BASE, BUTTON_VARIANTS[variant], BUTTON_SIZES[size]);
}

export type ButtonProps = React.ButtonHTMLAttributes<HTMLButtonElement> & {
  variant?: ButtonVariant;
  size?: ButtonSize;
  /** Disables the button and shows a spinner in place of the icon; the label stays, so nothing jumps. */
  loading?: boolean;
  icon?: LucideIcon;
  fullWidth?: boolean;
  ref?: React.Ref<HTMLButtonElement>;
};

export function Button({
  variant = 'secondary',
  size = 'md',
  loading = false,
  icon: Icon,
  fullWidth,
  className,
  disabled,
  children,
  type = 'button',
  ...rest
}: ButtonProps) {
  return (
    <button
      type={type}
      disabled={disabled || loading}
      aria-busy={loading || undefined}
      className={cx(buttonClasses({ variant, size }), fullWidth && 'w-full', className)}
      {...rest}
    >
      {loading ? <Spinner /> : Icon ? <Icon className="size-4 shrink-0" aria-hidden /> : null}
      {children}
    </button>
  );
}
