import type { LucideIcon } from 'lucide-react';

import { cx } from './cx';

export type CardTone = 'default' | 'accent' | 'info' | 'warning' | 'danger';

// A tinted card asks for attention (an approval waits, a server asks, a call failed).
const TONES: Record<CardTone, string> = {
  default: 'border-border bg-surface',
  accent: 'border-accent/40 bg-accent-soft/40',
  info: 'border-info-border bg-info-soft/60',
  warning: 'border-warning-border bg-warning-soft/70',
  danger: 'border-danger-border bg-surface',
};

export type CardProps = React.HTMLAttributes<HTMLElement> & {
  tone?: CardTone;
  /** `section` when the card has a name of its own (aria-label), `div` otherwise. */
  as?: 'div' | 'section' | 'article';
  ref?: React.Ref<HTMLElement>;
};

/** A bordered box on the surface; put a CardHeader, CardBody and CardFooter inside. */
export function Card({ tone = 'default', as: Tag = 'div', className, ref, ...rest }: CardProps) {
  // The ref is typed for any element: the tag is chosen at run time.
  return (
    <Tag
      ref={ref as React.Ref<HTMLDivElement>}
      className={cx('overflow-hidden rounded-card border shadow-card', TONES[tone], className)}
      {...rest}
    />
  );
}

export type CardHeaderProps = Omit<React.HTMLAttributes<HTMLDivElement>, 'title'> & {
  title: React.ReactNode;
  icon?: LucideIcon;
  /** Under the title, in muted text. */
  description?: React.ReactNode;
  /** Badges after the title; they wrap under it on a narrow screen. */
  badges?: React.ReactNode;
  /** At the far end of the header (a duration, an icon button). */
  actions?: React.ReactNode;
};

export function CardHeader({ title, icon: Icon, description, badges, actions, className, ...rest }: CardHeaderProps) {
  return (
    <div className={cx('flex items-start gap-3 px-4 pt-3', className)} {...rest}>
      {Icon && <Icon className="mt-0.5 size-4 shrink-0 text-muted" aria-hidden />}
      <div className="min-w-0 flex-1">
        <div className="flex flex-wrap items-center gap-x-2 gap-y-1">
          <div className="min-w-0 break-words text-sm font-semibold text-fg">{title}</div>
          {badges}
        </div>
        {description && <div className="mt-1 text-sm text-muted">{description}</div>}
      </div>
      {actions && <div className="flex shrink-0 items-center gap-1">{actions}</div>}
    </div>
  );
}

export function CardBody({ className, ...rest }: React.HTMLAttributes<HTMLDivElement>) {
  return <div className={cx('space-y-3 px-4 py-3', className)} {...rest} />;
}

/** The card's actions, in a row that wraps; primary action first. */
export function CardFooter({ className, ...rest }: React.HTMLAttributes<HTMLDivElement>) {
  return <div className={cx('flex flex-wrap items-center gap-2 border-t border-border px-4 py-3', className)} {...rest} />;
}
