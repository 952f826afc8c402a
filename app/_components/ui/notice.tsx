import { CircleAlert, CircleCheck, Info, TriangleAlert, type LucideIcon } from 'lucide-react';

import { cx } from './cx';

export type NoticeTone = 'info' | 'success' | 'warning' | 'error';

const TONES: Record<NoticeTone, { box: string; icon: LucideIcon }> = {
  info: { box: 'border-info-border bg-info-soft text-info-text', icon: Info },
  success: { box: 'border-success-border bg-success-soft text-success-text', icon: CircleCheck },
  warning: { box: 'border-warning-border bg-warning-soft text-warning-text', icon: TriangleAlert },
  error: { box: 'border-danger-border bg-danger-soft text-danger-text', icon: CircleAlert },
};

export type NoticeProps = Omit<React.HTMLAttributes<HTMLDivElement>, 'title'> & {
  tone?: NoticeTone;
  title?: React.ReactNode;
  /** Buttons after the text (Retry, Allow all once). */
  actions?: React.ReactNode;
};

/** A message in a tinted box. An error is announced at once (role=alert); pass `role` to change that. */
export function Notice({ tone = 'info', title, actions, className, children, role, ...rest }: NoticeProps) {
  const { box, icon: Icon } = TONES[tone];
  return (
    <div
      role={role ?? (tone === 'error' ? 'alert' : undefined)}
      className={cx('flex flex-wrap items-start gap-x-3 gap-y-2 rounded-card border px-3.5 py-2.5 text-sm', box, className)}
      {...rest}
    >
      <Icon className="mt-0.5 size-4 shrink-0" aria-hidden />
      <div className="min-w-0 flex-1 leading-6">
        {title && <p className="font-semibold">{title}</p>}
        {children && <div>{children}</div>}
      </div>
      {actions && <div className="flex w-full flex-wrap gap-2 sm:w-auto sm:self-center">{actions}</div>}
    </div>
  );
}
