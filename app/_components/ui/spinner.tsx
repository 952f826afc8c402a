import { LoaderCircle } from 'lucide-react';

import { cx } from './cx';

const SIZE = { sm: 'size-4', md: 'size-5', lg: 'size-8' } as const;

/**
 * A turning circle. With `label` it announces itself (role=status); without, it is decoration
 * (inside a Button that already says what is happening through aria-busy).
 */
export function Spinner({ size = 'sm', label, className }: { size?: keyof typeof SIZE; label?: string; className?: string }) {
  const icon = <LoaderCircle className={cx(SIZE[size], 'shrink-0 animate-spin', className)} aria-hidden />;
  if (!label) return icon;
  return (
    <span role="status" className="inline-flex items-center">
      {icon}
      <span className="sr-only">{label}</span>
    </span>
  );
}
