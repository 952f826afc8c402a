import type { LucideIcon } from 'lucide-react';

import { Card, CardHeader, cx, type CardTone } from '@/app/_components/ui';

/**
 * One part of the account page: a Card named by its heading (aria-labelledby), with a
 * CardBody and CardFooter inside as `children`.
 */
export function Section({
  id,
  title,
  description,
  icon: Icon,
  tone,
  children,
}: {
  id: string;
  title: string;
  description?: React.ReactNode;
  icon?: LucideIcon;
  tone?: CardTone;
  children: React.ReactNode;
}) {
  const danger = tone === 'danger';
  return (
    <Card as="section" aria-labelledby={id} tone={tone}>
      <CardHeader
        title={
          <h2 id={id} className={cx('flex items-center gap-2 text-base', danger && 'text-danger-text')}>
            {Icon && <Icon className={cx('size-4 shrink-0', danger ? 'text-danger-text' : 'text-muted')} aria-hidden />}
            {title}
          </h2>
        }
        description={description}
        className="pt-4"
      />
      {children}
    </Card>
  );
}
