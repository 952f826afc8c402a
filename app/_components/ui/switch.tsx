import { cx } from './cx';

export type SwitchProps = Omit<React.ButtonHTMLAttributes<HTMLButtonElement>, 'onChange' | 'aria-checked' | 'role'> & {
  checked: boolean;
  onChange: (checked: boolean) => void;
  /** What it switches, for screen readers (the visible label sits beside it, often richer). */
  label: string;
  busy?: boolean;
  ref?: React.Ref<HTMLButtonElement>;
};

/**
 * An on/off switch (role=switch): for something that takes effect at once, like a tool in a
 * conversation. Space and Enter toggle it, as on any button.
 */
export function Switch({ checked, onChange, label, busy, disabled, className, type = 'button', ...rest }: SwitchProps) {
  return (
    <button
      type={type}
      role="switch"
      aria-checked={checked}
      aria-label={label}
      aria-busy={busy || undefined}
      disabled={disabled || busy}
      onClick={() => onChange(!checked)}
      className={cx(
        'relative inline-flex h-6 w-10 shrink-0 cursor-pointer items-center rounded-full border transition-colors',
        'disabled:cursor-not-allowed disabled:opacity-50 aria-busy:cursor-progress',
        // A bigger target where a finger taps, without a bigger switch.
        'before:absolute before:-inset-2 before:content-[""]',
        checked ? 'border-accent bg-accent' : 'border-border-strong bg-surface-hover',
        className,
      )}
      {...rest}
    >
      <span
        aria-hidden
        className={cx(
          'inline-block size-4.5 rounded-full bg-white shadow-card transition-transform',
          checked ? 'translate-x-[1.125rem]' : 'translate-x-0.5',
        )}
      />
    </button>
  );
}
