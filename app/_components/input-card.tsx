'use client';

import { useState } from 'react';

import type { ElicitationField, ElicitationRequest, InputResponse } from '@/db/stored-json';
import type { InputResponseAction } from '@/db/vocabulary';

import { ToolCallHeader } from './tool-call-card';
import type { ToolCallView } from './types';

type Field = ElicitationField;
export type InputResponses = Record<string, InputResponse>;

/** A server asking the person something mid-call (elicitation): its question, as a form or a link. */
export function InputCard({
  call,
  onAnswer,
}: {
  call: ToolCallView;
  onAnswer: (call: ToolCallView, responses: InputResponses) => Promise<void>;
}) {
  const requests = call.inputRequests ?? {};
  const [values, setValues] = useState<Record<string, Record<string, unknown>>>({});
  const [busy, setBusy] = useState(false);

  async function submit(action: InputResponseAction) {
    setBusy(true);
    const responses: InputResponses = {};
    for (const [key, req] of Object.entries(requests)) {
      responses[key] =
        action === 'accept' && req.params?.mode !== 'url' ? { action, content: contentFor(req, values[key] ?? {}) } : { action };
    }
    try {
      await onAnswer(call, responses);
    } finally {
      setBusy(false);
    }
  }

  return (
    <section
      className="rounded-xl border-2 border-sky-300 bg-sky-50/60 px-4 py-3"
      data-testid="input-card"
      aria-label={`${call.server} asks for input`}
    >
      <ToolCallHeader call={call} />
      <form
        className="mt-2 space-y-3"
        onSubmit={(e) => {
          e.preventDefault();
          void submit('accept');
        }}
      >
        {Object.entries(requests).map(([key, req]) => (
          <fieldset key={key} className="space-y-2">
            <legend className="text-sm text-stone-800">
              <span className="font-semibold">{call.server} asks:</span> {req.params?.message}
            </legend>
            {req.params?.mode === 'url' && req.params.url ? (
              <ExternalLink url={req.params.url} />
            ) : (
              Object.entries(req.params?.requestedSchema?.properties ?? {}).map(([name, field]) => (
                <FieldInput
                  key={name}
                  id={`${call.id}-${key}-${name}`}
                  name={name}
                  field={field}
                  required={req.params?.requestedSchema?.required?.includes(name) ?? false}
                  value={values[key]?.[name]}
                  onChange={(v) => setValues((all) => ({ ...all, [key]: { ...all[key], [name]: v } }))}
                />
              ))
            )}
          </fieldset>
        ))}
        <div className="flex flex-wrap gap-2">
          <button
            disabled={busy}
            className="rounded-lg bg-indigo-600 px-3 py-1.5 text-sm font-semibold text-white hover:bg-indigo-700 disabled:opacity-50"
          >
            Submit
          </button>
          <button
            type="button"
            disabled={busy}
            onClick={() => void submit('decline')}
            className="rounded-lg border border-stone-300 bg-white px-3 py-1.5 text-sm hover:bg-stone-100"
          >
            Decline
          </button>
          <button
            type="button"
            disabled={busy}
            onClick={() => void submit('cancel')}
            className="rounded-lg px-3 py-1.5 text-sm text-stone-700 hover:bg-stone-200"
          >
            Cancel
          </button>
        </div>
      </form>
    </section>
  );
}

/** Only a well-formed https link is offered; anything else a server sends is shown as text. */
function ExternalLink({ url }: { url: string }) {
  let parsed: URL | null = null;
  try {
    parsed = new URL(url);
  } catch {
    parsed = null;
  }
  if (!parsed || parsed.protocol !== 'https:')
    return <p className="text-sm text-red-800">The server sent a link that cannot be opened safely: {url}</p>;
  return (
    <a href={parsed.toString()} target="_blank" rel="noopener noreferrer" className="text-sm text-indigo-700 underline">
      Open {parsed.host} to continue
    </a>
  );
}

function contentFor(req: ElicitationRequest, values: Record<string, unknown>): Record<string, unknown> {
  const props = req.params?.requestedSchema?.properties ?? {};
  const out: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(props)) {
    const v = values[name] ?? field.default;
    if (v === undefined || v === '') continue;
    out[name] = field.type === 'number' || field.type === 'integer' ? Number(v) : v;
  }
  return out;
}

function FieldInput(props: { id: string; name: string; field: Field; required: boolean; value: unknown; onChange: (v: unknown) => void }) {
  const { id, name, field, required, value, onChange } = props;
  const label = field.title ?? name;
  const cls = 'w-full rounded-lg border border-stone-300 bg-white px-2 py-1.5 text-sm outline-none focus:border-indigo-500';
  return (
    <label htmlFor={id} className="block text-sm">
      <span className="mb-1 block text-stone-700">
        {label}
        {required ? ' *' : ''}
      </span>
      {field.type === 'boolean' ? (
        <input id={id} type="checkbox" checked={Boolean(value ?? field.default)} onChange={(e) => onChange(e.target.checked)} />
      ) : Array.isArray(field.enum) ? (
        <select
          id={id}
          required={required}
          value={String(value ?? field.default ?? '')}
          onChange={(e) => onChange(e.target.value)}
          className={cls}
        >
          <option value="">Choose…</option>
          {field.enum.map((o) => (
            <option key={String(o)} value={String(o)}>
              {String(o)}
            </option>
          ))}
        </select>
      ) : (
        <input
          id={id}
          type={field.type === 'number' || field.type === 'integer' ? 'number' : 'text'}
          required={required}
          value={String(value ?? '')}
          onChange={(e) => onChange(e.target.value)}
          className={cls}
        />
      )}
      {field.description && <span className="mt-0.5 block text-xs text-stone-500">{field.description}</span>}
    </label>
  );
}
