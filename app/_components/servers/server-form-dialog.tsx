'use client';

import { Plus, X } from 'lucide-react';
import { useId, useRef, useState } from 'react';

import { api, ApiError } from '@/app/_components/api';
import { Button, Dialog, Disclosure, Field, HintedSwitch, IconButton, Input, Notice } from '@/app/_components/ui';

import {
  emptyForm,
  formFieldOf,
  formFrom,
  serverBody,
  SHOW_VIEWS_HINT,
  TRUST_HINTS,
  urlChangeDropsSecrets,
  type HeaderRow,
  type ServerForm,
  type ServerView,
} from './server-view';

const FORM_FIELDS = new Set(['name', 'namespace', 'url', 'trust', 'trustContent', 'showViews', 'timeoutMs', 'headers', 'oauthClient']);

/** Add a server (no `original`) or edit one. Errors land next to the field the server names. */
export function ServerFormDialog({
  open,
  original,
  onClose,
  onSaved,
}: {
  open: boolean;
  original?: ServerView;
  onClose: () => void;
  onSaved: (server: ServerView) => void;
}) {
  const formId = useId();
  // Ids of their own: every card keeps its (closed) edit dialog on the page next to the Add one.
  const ids = original ? `edit-${original.id}` : 'server';
  const nextKey = useRef(1000);
  const [form, setForm] = useState<ServerForm>(() => (original ? formFrom(original) : emptyForm()));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [general, setGeneral] = useState('');
  const [busy, setBusy] = useState(false);
  const set = <K extends keyof ServerForm>(key: K, value: ServerForm[K]) => setForm((f) => ({ ...f, [key]: value }));
  const setRow = (key: number, patch: Partial<HeaderRow>) =>
    setForm((f) => ({ ...f, headers: f.headers.map((r) => (r.key === key ? { ...r, ...patch } : r)) }));
  const addRow = () =>
    setForm((f) => ({ ...f, replaceHeaders: true, headers: [...f.headers, { key: nextKey.current++, name: '', value: '' }] }));
  const dropsSecrets = urlChangeDropsSecrets(form, original);
  const headersEditable = !original || form.replaceHeaders;

  function fail(field: string | undefined, message: string) {
    const key = formFieldOf(field);
    if (key && FORM_FIELDS.has(key)) {
      setErrors({ [key]: message });
      setGeneral('');
    } else {
      setErrors({});
      setGeneral(message);
    }
  }

  async function submit(e: React.FormEvent) {
    e.preventDefault();
    const built = serverBody(form, original);
    if ('problem' in built) return fail(built.problem.field, built.problem.message);
    setBusy(true);
    setErrors({});
    setGeneral('');
    try {
      const { server } = original
        ? await api<{ server: ServerView }>(`/api/servers/${original.id}`, { method: 'PATCH', body: built.body })
        : await api<{ server: ServerView }>('/api/servers', { method: 'POST', body: built.body });
      onSaved(server);
      if (!original) setForm(emptyForm());
    } catch (err) {
      if (err instanceof ApiError) fail(err.field, err.message);
      else fail(undefined, original ? 'Could not save the server.' : 'Could not add the server.');
    } finally {
      setBusy(false);
    }
  }

  return (
    <Dialog
      open={open}
      onClose={onClose}
      size="lg"
      title={original ? `Edit “${original.name}”` : 'Add a server'}
      description={original ? undefined : 'A remote MCP server reached over HTTPS. Its tools stay off until you have reviewed them.'}
      footer={
        <>
          <Button variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" form={formId} variant="primary" loading={busy}>
            {original ? 'Save' : 'Add server'}
          </Button>
        </>
      }
    >
      <form id={formId} onSubmit={submit} className="space-y-4" noValidate>
        <Field id={`${ids}-name`} label="Name" required error={errors.name}>
          <Input data-autofocus autoComplete="off" value={form.name} onChange={(e) => set('name', e.target.value)} maxLength={100} />
        </Field>
        <Field id={`${ids}-url`} label="URL" required error={errors.url} hint="The server’s MCP endpoint, e.g. https://mcp.example.com/mcp">
          <Input
            type="url"
            inputMode="url"
            autoComplete="off"
            spellCheck={false}
            placeholder="https://"
            value={form.url}
            onChange={(e) => set('url', e.target.value)}
          />
        </Field>
        {dropsSecrets && (
          <Notice tone="warning" role="status">
            Changing the URL drops this server’s stored header values and its sign-in: enter the headers again below and connect again after
            saving.
          </Notice>
        )}
        <div className="grid gap-4 sm:grid-cols-2">
          <Field
            id={`${ids}-namespace`}
            label="Namespace"
            error={errors.namespace}
            hint="Its tools are named namespace__tool. Leave empty to derive it from the name."
          >
            <Input autoComplete="off" spellCheck={false} value={form.namespace} onChange={(e) => set('namespace', e.target.value)} />
          </Field>
          <Field id={`${ids}-timeout`} label="Timeout (seconds)" hint="From 1 to 300." error={errors.timeoutMs}>
            <Input
              type="number"
              inputMode="numeric"
              min={1}
              value={form.timeoutSeconds}
              onChange={(e) => set('timeoutSeconds', e.target.value)}
            />
          </Field>
        </div>

        <fieldset className="space-y-3">
          <legend className="text-sm font-medium text-fg">Trust</legend>
          <HintedSwitch
            inForm
            id={`${ids}-trust`}
            label="Trust its annotations"
            hint={TRUST_HINTS.annotations}
            error={errors.trust}
            checked={form.trust === 'trusted'}
            onChange={(on) => set('trust', on ? 'trusted' : 'untrusted')}
          />
          <HintedSwitch
            inForm
            id={`${ids}-trust-content`}
            label="Trust its content"
            hint={TRUST_HINTS.content}
            error={errors.trustContent}
            checked={form.trustContent}
            onChange={(on) => set('trustContent', on)}
          />
          <HintedSwitch
            inForm
            id={`${ids}-show-views`}
            label="Show interactive views"
            hint={SHOW_VIEWS_HINT}
            error={errors.showViews}
            checked={form.showViews}
            onChange={(on) => set('showViews', on)}
          />
        </fieldset>

        <fieldset className="space-y-2" aria-describedby={errors.headers ? `${ids}-headers-error` : undefined}>
          <legend className="text-sm font-medium text-fg">Headers</legend>
          <p className="text-[13px] text-faint">
            Sent with every request, e.g. an API key. Values are stored encrypted and never shown again
            {original && ' (leave a stored one empty to keep it)'}.
          </p>
          {original && !form.replaceHeaders && (
            <div className="flex flex-wrap items-center gap-2 text-sm">
              <span className="text-muted">
                {original.headerNames.length > 0 ? `Stored: ${original.headerNames.join(', ')}` : 'No headers stored.'}
              </span>
              <Button size="sm" variant="ghost" onClick={() => set('replaceHeaders', true)}>
                {original.headerNames.length > 0 ? 'Change headers' : 'Add headers'}
              </Button>
            </div>
          )}
          {headersEditable &&
            form.headers.map((row, i) => (
              <div key={row.key} className="flex items-end gap-2" data-testid="header-row">
                <Field id={`${ids}-header-name-${row.key}`} label={`Header ${i + 1} name`} className="min-w-0 flex-1">
                  <Input
                    autoComplete="off"
                    spellCheck={false}
                    placeholder="X-Api-Key"
                    value={row.name}
                    onChange={(e) => setRow(row.key, { name: e.target.value })}
                  />
                </Field>
                <Field id={`${ids}-header-value-${row.key}`} label={`Header ${i + 1} value`} className="min-w-0 flex-1">
                  <Input
                    type="password"
                    autoComplete="new-password"
                    placeholder={original?.headerNames.includes(row.name) && !dropsSecrets ? 'unchanged' : undefined}
                    value={row.value}
                    onChange={(e) => setRow(row.key, { value: e.target.value })}
                  />
                </Field>
                <IconButton
                  icon={X}
                  label={`Remove header ${i + 1}`}
                  className="mb-1"
                  onClick={() => setForm((f) => ({ ...f, headers: f.headers.filter((r) => r.key !== row.key) }))}
                />
              </div>
            ))}
          {headersEditable && (
            <Button size="sm" variant="ghost" icon={Plus} onClick={addRow}>
              Add header
            </Button>
          )}
          {errors.headers && (
            <p id={`${ids}-headers-error`} className="text-[13px] text-danger-text">
              {errors.headers}
            </p>
          )}
        </fieldset>

        <Disclosure
          open={Boolean(errors.oauthClient) || undefined}
          summary={<span className="text-sm font-medium">Advanced: a pre-registered OAuth client</span>}
          contentClassName="space-y-4"
        >
          <p className="text-[13px] text-faint">
            Only if the server’s provider gave you a client for Switchboard. Without one, Switchboard identifies itself on its own.
          </p>
          <Field id={`${ids}-client-id`} label="OAuth client ID" error={errors.oauthClient}>
            <Input autoComplete="off" spellCheck={false} value={form.clientId} onChange={(e) => set('clientId', e.target.value)} />
          </Field>
          <Field
            id={`${ids}-client-secret`}
            label="OAuth client secret"
            hint={original?.oauthClient?.hasSecret ? 'A secret is stored; leave empty to keep it.' : 'Optional.'}
          >
            <Input
              type="password"
              autoComplete="new-password"
              value={form.clientSecret}
              onChange={(e) => set('clientSecret', e.target.value)}
            />
          </Field>
        </Disclosure>
        {general && <Notice tone="error">{general}</Notice>}
      </form>
    </Dialog>
  );
}
