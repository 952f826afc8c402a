'use client';

import { createContext, useContext, useId } from 'react';

import { cx } from './cx';

type FieldWiring = { id: string; describedBy?: string; invalid: boolean; required?: boolean };

const FieldContext = createContext<FieldWiring | null>(null);

export type FieldProps = {
  label: React.ReactNode;
  /** The control inside: an Input, Textarea or Select, which picks up the id and descriptions. */
  children: React.ReactNode;
  hint?: React.ReactNode;
  /** Shown in the danger tone and marks the control aria-invalid. */
  error?: React.ReactNode;
  /** A fixed id for the control (tests and labels elsewhere may rely on it); generated otherwise. */
  id?: string;
  required?: boolean;
  /** Keep the label for screen readers only (a search box, an inline rename). */
  hideLabel?: boolean;
  className?: string;
};

/** A label, the control, a hint and an error, wired together with aria-describedby and aria-invalid. */
export function Field({ label, children, hint, error, id, required, hideLabel, className }: FieldProps) {
  const generated = useId();
  const controlId = id ?? `field${generated}`;
  const hintId = hint ? `${controlId}-hint` : undefined;
  const errorId = error ? `${controlId}-error` : undefined;
  const describedBy = [errorId, hintId].filter(Boolean).join(' ') || undefined;
  return (
    <div className={cx('space-y-1.5', className)}>
      <label htmlFor={controlId} className={cx('block text-sm font-medium text-fg', hideLabel && 'sr-only')}>
        {label}
        {required && (
          <span className="text-danger-text" aria-hidden>
            {' '}
            *
          </span>
        )}
      </label>
      <FieldContext.Provider value={{ id: controlId, describedBy, invalid: Boolean(error), required }}>{children}</FieldContext.Provider>
      {error && (
        <p id={errorId} className="text-[13px] text-danger-text">
          {error}
        </p>
      )}
      {hint && (
        <p id={hintId} className="text-[13px] text-faint">
          {hint}
        </p>
      )}
    </div>
  );
}

// 16 px text on phones: iOS zooms into any field whose text is smaller when it gets focus.
export const CONTROL_CLASSES = [
  'w-full rounded-control border border-border-strong bg-surface px-3 text-base text-fg shadow-card md:text-sm',
  'placeholder:text-faint transition-[border-color,box-shadow]',
  'focus:border-focus focus:outline-none focus-visible:outline-none focus:ring-3 focus:ring-focus/25',
  'aria-invalid:border-danger aria-invalid:focus:ring-danger/25',
  'disabled:cursor-not-allowed disabled:bg-surface-sunken disabled:text-faint',
].join(' ');

/** The attributes a control takes from its Field, unless it was given its own. */
function useFieldWiring(props: { id?: string; 'aria-describedby'?: string; 'aria-invalid'?: React.AriaAttributes['aria-invalid'] }) {
  const field = useContext(FieldContext);
  return {
    id: props.id ?? field?.id,
    'aria-describedby': props['aria-describedby'] ?? field?.describedBy,
    'aria-invalid': props['aria-invalid'] ?? (field?.invalid || undefined),
  };
}

export type InputProps = React.InputHTMLAttributes<HTMLInputElement> & { ref?: React.Ref<HTMLInputElement> };

export function Input({ className, ...props }: InputProps) {
  const wiring = useFieldWiring(props);
  return <input {...props} {...wiring} className={cx(CONTROL_CLASSES, 'h-10', className)} />;
}

export type TextareaProps = React.TextareaHTMLAttributes<HTMLTextAreaElement> & { ref?: React.Ref<HTMLTextAreaElement> };

export function Textarea({ className, ...props }: TextareaProps) {
  const wiring = useFieldWiring(props);
  return <textarea {...props} {...wiring} className={cx(CONTROL_CLASSES, 'min-h-20 py-2 leading-6', className)} />;
}

export type SelectProps = React.SelectHTMLAttributes<HTMLSelectElement> & { ref?: React.Ref<HTMLSelectElement> };

export function Select({ className, ...props }: SelectProps) {
  const wiring = useFieldWiring(props);
  return <select {...props} {...wiring} className={cx(CONTROL_CLASSES, 'h-10 pr-8', className)} />;
}
