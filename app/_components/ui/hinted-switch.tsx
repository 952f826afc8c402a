'use client';

import { useId } from 'react';

import { cx } from './cx';
import { Switch, type SwitchProps } from './switch';

export type HintedSwitchProps = Omit<SwitchProps, 'label' | 'aria-describedby' | 'aria-invalid'> & {
  /** Beside the switch, and its name for screen readers. */
  label: string;
  /** What on and off mean, under the label; read with the switch. */
  hint: React.ReactNode;
  /** Shown in the danger tone under the hint and marks the switch aria-invalid. */
  error?: React.ReactNode;
  /** Among the Fields of a form: the hint in a Field hint's tone, spaced like a Field. */
  inForm?: boolean;
};

/**
 * A switch with its label beside it and what it means below (read by screen readers with it):
 * a setting whose two states need a sentence, in a dialog or a form.
 */
export function HintedSwitch({ label, hint, error, inForm, id, className, ...rest }: HintedSwitchProps) {
  const generated = useId();
  const switchId = id ?? `switch${generated}`;
  const hintId = `${switchId}-hint`;
  const errorId = `${switchId}-error`;
  return (
    <div className={cx('flex items-start gap-3', className)}>
      <Switch
        id={switchId}
        label={label}
        aria-describedby={error ? `${errorId} ${hintId}` : hintId}
        aria-invalid={error ? true : undefined}
        className="mt-0.5"
        {...rest}
      />
      <div className={cx('min-w-0', inForm && 'space-y-1')}>
        <label htmlFor={switchId} className="block text-sm font-medium text-fg">
          {label}
        </label>
        <p id={hintId} className={cx('text-[13px]', inForm ? 'text-faint' : 'text-muted')}>
          {hint}
        </p>
        {error && (
          <p id={errorId} className="text-[13px] text-danger-text">
            {error}
          </p>
        )}
      </div>
    </div>
  );
}
