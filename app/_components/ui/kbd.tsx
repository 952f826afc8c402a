import { cx } from './cx';

/** A key on the keyboard, as in "Enter to send". */
export function Kbd({ className, ...rest }: React.HTMLAttributes<HTMLElement>) {
  return (
    <kbd
      className={cx(
        'inline-flex min-w-5 items-center justify-center rounded-md border border-border-strong border-b-2',
        'bg-surface px-1 font-sans text-[11px] font-medium leading-4 text-muted',
        className,
      )}
      {...rest}
    />
  );
}
