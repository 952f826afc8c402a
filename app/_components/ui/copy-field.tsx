'use client';

import { CopyButton } from './copy-button';
import { Field, Input } from './field';

/**
 * A value to copy (an address, a token shown once): a read-only field, selected whole on focus,
 * with a Copy button beside it.
 */
export function CopyField({
  label,
  id,
  value,
  copyLabel,
  hint,
}: {
  label: React.ReactNode;
  /** The field's id (tests and labels elsewhere may rely on it). */
  id: string;
  value: string;
  /** The Copy button's name, e.g. "Copy link". */
  copyLabel: string;
  hint?: React.ReactNode;
}) {
  return (
    <Field label={label} id={id} hint={hint}>
      <div className="flex items-center gap-1">
        <Input
          readOnly
          value={value}
          onFocus={(e) => e.currentTarget.select()}
          spellCheck={false}
          className="font-mono text-[13px] md:text-[13px]"
        />
        <CopyButton text={value} label={copyLabel} />
      </div>
    </Field>
  );
}
