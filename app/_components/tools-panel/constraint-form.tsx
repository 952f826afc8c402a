'use client';

import { useId, useState } from 'react';

import { Button, Field, Input, Select, Textarea } from '@/app/_components/ui';

import { CONSTRAINT_KINDS, constraintFromForm, type ConstraintForm } from './tools-view';

/**
 * Sets a grant's argument constraint: one of the three forms about one argument. The browser
 * builds the fragment (lib/consent/constraints.ts) and the server checks it again; a problem from
 * either shows under the input it is about.
 */
export function ConstraintEditor({
  args,
  error,
  onSave,
  onCancel,
}: {
  /** The tool's top-level arguments, when known (else the argument's name is typed). */
  args: { name: string; type: string | null }[];
  /** The server's refusal, if any. */
  error: string | null;
  onSave: (constraint: Record<string, unknown>) => Promise<void>;
  onCancel: () => void;
}) {
  const id = useId();
  const textArgs = args.filter((a) => a.type === null || a.type === 'string');
  const [form, setForm] = useState<ConstraintForm>({ kind: 'path_prefix', field: (textArgs[0] ?? args[0])?.name ?? '', value: '' });
  const [problem, setProblem] = useState<{ field: string; message: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const kind = CONSTRAINT_KINDS.find((k) => k.value === form.kind)!;
  const type = args.find((a) => a.name === form.field)?.type ?? null;

  const submit = async () => {
    const built = constraintFromForm(form, type);
    if ('problem' in built) return setProblem(built.problem);
    setProblem(null);
    setBusy(true);
    try {
      await onSave(built.constraint);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form
      className="space-y-3 rounded-control border border-border bg-surface-sunken p-3"
      aria-label="Limit the arguments"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <div className="grid gap-3 sm:grid-cols-2">
        <Field label="Rule" id={`${id}-kind`}>
          <Select value={form.kind} onChange={(e) => setForm({ ...form, kind: e.target.value as ConstraintForm['kind'] })}>
            {CONSTRAINT_KINDS.map((k) => (
              <option key={k.value} value={k.value}>
                {k.label}
              </option>
            ))}
          </Select>
        </Field>
        <Field label="Argument" id={`${id}-field`} error={problem?.field === 'field' ? problem.message : undefined}>
          {args.length > 0 ? (
            <Select value={form.field} onChange={(e) => setForm({ ...form, field: e.target.value })}>
              {args.map((a) => (
                <option key={a.name} value={a.name}>
                  {a.name}
                  {a.type ? ` (${a.type})` : ''}
                </option>
              ))}
            </Select>
          ) : (
            <Input value={form.field} onChange={(e) => setForm({ ...form, field: e.target.value })} placeholder="path" />
          )}
        </Field>
      </div>
      <Field
        label={form.kind === 'one_of' ? 'Values' : form.kind === 'exact' ? 'Value' : 'Prefix'}
        id={`${id}-value`}
        hint={
          form.kind === 'path_prefix'
            ? 'The argument must start with this and may not contain “..”.'
            : form.kind === 'one_of'
              ? 'One value per line.'
              : undefined
        }
        error={(problem?.field === 'value' ? problem.message : undefined) ?? error ?? undefined}
      >
        {form.kind === 'one_of' ? (
          <Textarea
            rows={3}
            value={form.value}
            onChange={(e) => setForm({ ...form, value: e.target.value })}
            placeholder={kind.placeholder}
          />
        ) : (
          <Input value={form.value} onChange={(e) => setForm({ ...form, value: e.target.value })} placeholder={kind.placeholder} />
        )}
      </Field>
      <div className="flex flex-wrap gap-2">
        <Button type="submit" variant="primary" size="sm" loading={busy}>
          Save limit
        </Button>
        <Button variant="ghost" size="sm" onClick={onCancel}>
          Cancel
        </Button>
      </div>
    </form>
  );
}
