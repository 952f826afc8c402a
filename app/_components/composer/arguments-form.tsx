'use client';

import { useEffect, useRef, useState } from 'react';

import { Badge, Button, Field, Input } from '../ui/index';

export interface ArgumentField {
  name: string;
  description?: string;
  required: boolean;
}

/**
 * The small form a composer menu opens for what it chose: a prompt's arguments (required ones
 * marked) or a resource template's variables. Enter submits, Escape goes back to the text.
 * `problems` are per field, from the caller's check; nothing is sent while one is left.
 */
export function ArgumentsForm({
  title,
  server,
  description,
  fields,
  submitLabel,
  problemsOf,
  onSubmit,
  onCancel,
}: {
  title: string;
  server: string;
  description?: string;
  fields: ArgumentField[];
  submitLabel: string;
  problemsOf: (values: Record<string, string>) => Record<string, string>;
  onSubmit: (values: Record<string, string>) => void;
  onCancel: () => void;
}) {
  const [values, setValues] = useState<Record<string, string>>({});
  const [shown, setShown] = useState<Record<string, string>>({});
  const first = useRef<HTMLInputElement>(null);
  useEffect(() => first.current?.focus(), []);
  return (
    <form
      className="space-y-3 p-3"
      aria-label={title}
      onSubmit={(e) => {
        e.preventDefault();
        const problems = problemsOf(values);
        setShown(problems);
        if (Object.keys(problems).length === 0) onSubmit(values);
      }}
      onKeyDown={(e) => {
        if (e.key === 'Escape') {
          e.preventDefault();
          e.stopPropagation();
          onCancel();
        }
      }}
    >
      <div className="flex items-start justify-between gap-3">
        <div className="min-w-0">
          <p className="truncate text-sm font-semibold text-fg">{title}</p>
          {description && <p className="text-xs text-muted">{description}</p>}
        </div>
        <Badge appearance="outline" className="shrink-0">
          {server}
        </Badge>
      </div>
      {fields.map((f, i) => (
        <Field key={f.name} label={f.name} hint={f.description} required={f.required} error={shown[f.name]}>
          <Input
            ref={i === 0 ? first : undefined}
            value={values[f.name] ?? ''}
            onChange={(e) => setValues((v) => ({ ...v, [f.name]: e.target.value }))}
            autoComplete="off"
          />
        </Field>
      ))}
      {fields.some((f) => f.required) && (
        <p className="text-xs text-faint">
          <span className="text-danger-text" aria-hidden>
            *
          </span>{' '}
          required
        </p>
      )}
      <div className="flex justify-end gap-2">
        <Button type="button" variant="ghost" size="sm" onClick={onCancel}>
          Cancel
        </Button>
        <Button type="submit" variant="primary" size="sm">
          {submitLabel}
        </Button>
      </div>
    </form>
  );
}
