import type { LucideIcon } from 'lucide-react';

import { cx } from './cx';

export type BadgeTone = 'neutral' | 'accent' | 'info' | 'success' | 'warning' | 'danger';

// Soft: a filled pill for a state (Running, Done). Outline: a quieter tag for a property
// (read-only, destructive, untrusted server).
// The soft fills are stronger than a Notice's or a tinted Card's background, so a badge still
// shows inside one (a "Needs your approval" badge on the approval card).
const SOFT: Record<BadgeTone, string> = {
  neutral: 'border-transparent bg-surface-hover text-muted',
  accent: 'border-transparent bg-accent/15 text-accent-text',
  info: 'border-transparent bg-info/15 text-info-text',
  success: 'border-transparent bg-success/15 text-success-text',
  warning: 'border-transparent bg-warning/20 text-warning-text',
  danger: 'border-transparent bg-danger/15 text-danger-text',
};
const OUTLINE: Record<BadgeTone, string> = {
  neutral: 'border-border-strong text-muted',
  accent: 'border-accent/40 text-accent-text',
  info: 'border-info-border text-info-text',
  success: 'border-success-border text-success-text',
  warning: 'border-warning-border text-warning-text',
  danger: 'border-danger-border bg-danger-soft text-danger-text',
};

export type BadgeProps = React.HTMLAttributes<HTMLSpanElement> & {
  tone?: BadgeTone;
  appearance?: 'soft' | 'outline';
  icon?: LucideIcon;
};

export function Badge({ tone = 'neutral', appearance = 'soft', icon: Icon, className, children, ...rest }: BadgeProps) {
  return (
    <span
      className={cx(
        'inline-flex max-w-full items-center gap-1 rounded-full border px-2 py-0.5 text-xs font-medium leading-4',
        (appearance === 'soft' ? SOFT : OUTLINE)[tone],
        className,
      )}
      {...rest}
    >
      {Icon && <Icon className="size-3 shrink-0" aria-hidden />}
      <span className="truncate">{children}</span>
    </span>
  );
}
