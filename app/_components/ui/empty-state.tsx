import type { LucideIcon } from 'lucide-react';

import { cx } from './cx';

export type EmptyStateProps = {
  title: React.ReactNode;
  description?: React.ReactNode;
  /** An icon, or any mark (the logo) in its place. */
  icon?: LucideIcon;
  mark?: React.ReactNode;
  /** What to do next: buttons, examples. */
  children?: React.ReactNode;
  headingLevel?: 'h2' | 'h3';
  className?: string;
};

/** Nothing here yet, said kindly, with the way forward under it. */
export function EmptyState({ title, description, icon: Icon, mark, children, headingLevel: Heading = 'h2', className }: EmptyStateProps) {
  return (
    <div className={cx('flex flex-col items-center px-4 text-center', className)}>
      {mark ??
        (Icon && (
          <span className="mb-4 flex size-12 items-center justify-center rounded-card bg-surface-hover text-muted">
            <Icon className="size-6" aria-hidden />
          </span>
        ))}
      <Heading className="text-balance text-xl font-semibold tracking-tight text-fg sm:text-2xl">{title}</Heading>
      {description && <div className="mt-2 max-w-prose text-pretty text-[15px] leading-6 text-muted">{description}</div>}
      {children && <div className="mt-6 w-full">{children}</div>}
    </div>
  );
}
