'use client';

import { ExternalLink, MessageCircleQuestion } from 'lucide-react';
import { useState } from 'react';

import type { ElicitationField, ElicitationRequest, InputResponse } from '@/db/stored-json';
import type { InputResponseAction } from '@/db/vocabulary';
import { elicitationLink } from '@/lib/mcp/elicitation-link';

import type { ToolCallView } from '../types';
import { Button, Card, CardBody, CardFooter, CardHeader, Field as FormField, Input, Notice, Select } from '../ui/index';
import { ToolCallHeader } from './tool-call-header';

type FieldSpec = ElicitationField;
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
  const asked = Object.values(requests);
  // Only links: "accept" means "I finished the step on the page", which the server then checks.
  const onlyLinks = asked.length > 0 && asked.every((r) => r.params?.mode === 'url');
  const refusedLink = asked.some((r) => r.params?.mode === 'url' && !elicitationLink(r.params.url).ok);

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
    <Card as="section" tone="info" data-testid="input-card" aria-label={`${call.server} asks for input`}>
      <CardHeader icon={MessageCircleQuestion} title={<ToolCallHeader call={call} />} />
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void submit('accept');
        }}
      >
        <CardBody>
          {Object.entries(requests).map(([key, req]) => (
            <fieldset key={key} className="space-y-3">
              <legend className="mb-2 text-sm text-fg">
                <span className="font-semibold">
                  {call.server} {req.params?.mode === 'url' ? 'asks you to continue on a web page' : 'asks'}:
                </span>{' '}
                {req.params?.message}
              </legend>
              {req.params?.mode === 'url' ? (
                <LinkStep server={call.server ?? 'the server'} url={req.params.url} />
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
        </CardBody>
        <CardFooter>
          <Button variant="primary" size="sm" type="submit" loading={busy} disabled={refusedLink}>
            {onlyLinks ? 'I’ve finished' : 'Submit'}
          </Button>
          <Button size="sm" disabled={busy} onClick={() => void submit('decline')}>
            Decline
          </Button>
          <Button variant="ghost" size="sm" disabled={busy} onClick={() => void submit('cancel')}>
            Cancel
          </Button>
        </CardFooter>
      </form>
    </Card>
  );
}

/**
 * A server's link (URL-mode elicitation): its host large, since that is what the person judges,
 * the whole URL under it, and a button that opens it in a new tab only when clicked — no opener,
 * no referrer. A link that is not a web page (lib/mcp/elicitation-link.ts) is shown, never offered.
 */
function LinkStep({ server, url }: { server: string; url: string | undefined }) {
  const link = elicitationLink(url);
  if (!link.ok) {
    return (
      <Notice tone="error">
        Switchboard does not open this link: {link.problem}. Decline or cancel to tell {server}.
        {url && <span className="mt-1 block break-all font-mono text-xs">{url}</span>}
      </Notice>
    );
  }
  return (
    <div className="space-y-2 rounded-md border border-border bg-surface p-3">
      <p className="text-xs text-muted">The page is on</p>
      <p className="break-all font-mono text-lg font-semibold text-fg" data-testid="input-link-host">
        {link.host}
      </p>
      <p className="break-all font-mono text-xs text-muted" data-testid="input-link-url">
        {link.url}
      </p>
      <Button size="sm" icon={ExternalLink} onClick={() => window.open(link.url, '_blank', 'noopener,noreferrer')}>
        Open {link.host}
      </Button>
      <p className="text-xs text-muted">
        It opens in a new tab only when you click. Finish there, come back, and press “I’ve finished”: {server} then checks that the step is
        done.
      </p>
    </div>
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

function FieldInput(props: {
  id: string;
  name: string;
  field: FieldSpec;
  required: boolean;
  value: unknown;
  onChange: (v: unknown) => void;
}) {
  const { id, name, field, required, value, onChange } = props;
  if (field.type === 'boolean') {
    return (
      <label htmlFor={id} className="flex items-center gap-2 text-sm text-fg">
        <input id={id} type="checkbox" checked={Boolean(value ?? field.default)} onChange={(e) => onChange(e.target.checked)} />
        {field.title ?? name}
        {field.description && <span className="text-xs text-muted">— {field.description}</span>}
      </label>
    );
  }
  return (
    <FormField id={id} label={field.title ?? name} hint={field.description} required={required}>
      {Array.isArray(field.enum) ? (
        <Select required={required} value={String(value ?? field.default ?? '')} onChange={(e) => onChange(e.target.value)}>
          <option value="">Choose…</option>
          {field.enum.map((o) => (
            <option key={String(o)} value={String(o)}>
              {String(o)}
            </option>
          ))}
        </Select>
      ) : (
        <Input
          type={field.type === 'number' || field.type === 'integer' ? 'number' : 'text'}
          required={required}
          value={String(value ?? '')}
          onChange={(e) => onChange(e.target.value)}
        />
      )}
    </FormField>
  );
}
