'use client';

import { characterCount, checkedInstructions, INSTRUCTIONS_LIMITS, type InstructionsKind } from '@/lib/instructions';

import { cx, Field, Textarea } from '../ui';

/**
 * The problem with a draft before it is sent, in the words the server would use (the same check,
 * lib/instructions.ts), or null. The server still checks it.
 */
export function draftProblem(text: string, kind: InstructionsKind): string | null {
  const checked = checkedInstructions(text, kind);
  return 'problem' in checked ? `Instructions ${checked.problem}.` : null;
}

/** A textarea for instructions, with its count of characters against the limit and an error under it. */
export function InstructionsField({
  id,
  label,
  kind,
  value,
  onChange,
  error,
  hint,
  placeholder,
  autoFocus,
}: {
  id: string;
  label: React.ReactNode;
  kind: InstructionsKind;
  value: string;
  onChange: (next: string) => void;
  error?: string | null;
  hint: React.ReactNode;
  placeholder?: string;
  autoFocus?: boolean;
}) {
  const limit = INSTRUCTIONS_LIMITS[kind];
  const count = characterCount(value.trim());
  const over = count > limit;
  return (
    <Field
      id={id}
      label={label}
      error={error || undefined}
      hint={
        <span className="flex flex-wrap justify-between gap-x-3">
          <span>{hint}</span>
          <span data-testid={`${id}-count`} className={cx('tabular-nums', over && 'font-medium text-danger-text')}>
            {count.toLocaleString('en')} / {limit.toLocaleString('en')} characters
          </span>
        </span>
      }
    >
      <Textarea
        value={value}
        onChange={(e) => onChange(e.target.value)}
        rows={6}
        placeholder={placeholder}
        className="min-h-32 resize-y"
        {...(autoFocus ? { 'data-autofocus': true } : {})}
      />
    </Field>
  );
}
