'use client';

import type { LucideIcon } from 'lucide-react';

import { cx, EmptyState, RetryNotice, Spinner } from '../ui/index';

/**
 * A page that lists the person's things, loaded in the browser (the inbox, shared links): its
 * heading, then while `items` is null a spinner or what failed with Try again, then the empty
 * state or `children` (the list).
 */
export function ListPage({
  title,
  description,
  roomy,
  items,
  loadError,
  onRetry,
  loadingLabel,
  empty,
  children,
}: {
  title: string;
  description: React.ReactNode;
  /** More room between the heading and what follows, for lists of larger cards. */
  roomy?: boolean;
  /** Null until loaded. */
  items: readonly unknown[] | null;
  /** What failed to load ('' when nothing did). */
  loadError: string;
  onRetry: () => unknown;
  /** The spinner's name for screen readers. */
  loadingLabel: string;
  empty: { icon: LucideIcon; title: React.ReactNode; description: React.ReactNode };
  children: React.ReactNode;
}) {
  return (
    <div className="h-full overflow-y-auto">
      <div className={cx('mx-auto max-w-3xl px-4 py-8 sm:py-12', roomy ? 'space-y-8' : 'space-y-6')}>
        <div className="min-w-0">
          <h1 className="text-2xl font-semibold tracking-tight">{title}</h1>
          <p className="mt-1.5 text-[15px] text-muted">{description}</p>
        </div>
        {loadError && <RetryNotice onRetry={onRetry}>{loadError}</RetryNotice>}
        {!items && !loadError && (
          <div className="flex justify-center py-12">
            <Spinner size="md" label={loadingLabel} />
          </div>
        )}
        {items && items.length === 0 && (
          <div className="rounded-card border border-dashed border-border-strong py-10">
            <EmptyState icon={empty.icon} title={empty.title} description={empty.description} />
          </div>
        )}
        {items && items.length > 0 && children}
      </div>
    </div>
  );
}
