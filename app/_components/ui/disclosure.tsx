import { ChevronRight } from 'lucide-react';

import { cx } from './cx';

export type DisclosureProps = Omit<React.DetailsHTMLAttributes<HTMLDetailsElement>, 'children'> & {
  /** What is always shown; clicking it (or Enter / Space on it) opens the rest. */
  summary: React.ReactNode;
  children: React.ReactNode;
  /** Classes of the summary row and of the revealed part. */
  summaryClassName?: string;
  contentClassName?: string;
};

/** A native details/summary with a turning chevron: keyboard and screen readers get it for free. */
export function Disclosure({ summary, children, className, summaryClassName, contentClassName, ...rest }: DisclosureProps) {
  return (
    <details className={cx('group/disclosure', className)} {...rest}>
      <summary
        className={cx(
          'flex cursor-pointer list-none items-start gap-2 rounded-control [&::-webkit-details-marker]:hidden',
          summaryClassName,
        )}
      >
        <ChevronRight className="mt-0.5 size-4 shrink-0 text-faint transition-transform group-open/disclosure:rotate-90" aria-hidden />
        <div className="min-w-0 flex-1">{summary}</div>
      </summary>
      <div className={cx('mt-2', contentClassName)}>{children}</div>
    </details>
  );
}
