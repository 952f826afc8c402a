'use client';

import { CircleCheck, CircleSlash, TriangleAlert, Upload } from 'lucide-react';
import { useId, useState } from 'react';

import { api, ApiError } from '@/app/_components/api';
import { Button, Dialog, Field, Notice, Textarea } from '@/app/_components/ui';

import { parseImport, type ImportResult, type ServerView } from './server-view';

// The file input is visually hidden inside its label: the label shows the keyboard focus.
const FILE_LABEL = [
  'inline-flex cursor-pointer items-center gap-2 rounded-control text-sm font-medium text-accent-text hover:underline',
  'has-focus-visible:outline-2 has-focus-visible:outline-offset-2 has-focus-visible:outline-focus',
].join(' ');

const EXAMPLE = `{
  "mcpServers": {
    "linear": { "url": "https://mcp.linear.app/mcp" }
  }
}`;

const DESCRIPTION =
  'Paste a Claude Desktop or VS Code MCP configuration, or choose the file. ' +
  'Placeholders such as ${env:…} are kept as written, never filled in.';

/**
 * Import a Claude Desktop `mcpServers` or VS Code `servers` configuration: pasted or from a file.
 * Shows what was added, what cannot be used in a web app (stdio) and what had problems.
 */
export function ImportDialog({ open, onClose, onAdded }: { open: boolean; onClose: () => void; onAdded: (added: ServerView[]) => void }) {
  const formId = useId();
  const [text, setText] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<ImportResult | null>(null);

  async function pick(file: File | undefined) {
    if (!file) return;
    if (file.size > 1_000_000) return setError('That file is over 1 MB; a configuration is much smaller.');
    setText(await file.text());
    setError('');
  }

  async function submit(e: React.FormEvent) {
    e.preventDefault();
    const parsed = parseImport(text);
    if ('problem' in parsed) return setError(parsed.problem);
    setBusy(true);
    setError('');
    try {
      const res = await api<ImportResult>('/api/servers/import', { method: 'POST', body: parsed.config });
      setResult(res);
      if (res.added.length > 0) onAdded(res.added);
    } catch (err) {
      setError(err instanceof ApiError ? err.message : 'Could not import.');
    } finally {
      setBusy(false);
    }
  }

  function close() {
    setResult(null);
    setText('');
    setError('');
    onClose();
  }

  return (
    <Dialog
      open={open}
      onClose={close}
      size="lg"
      title="Import servers"
      description={DESCRIPTION}
      footer={
        result ? (
          <Button variant="primary" onClick={close} data-autofocus>
            Done
          </Button>
        ) : (
          <>
            <Button variant="secondary" onClick={close}>
              Cancel
            </Button>
            <Button type="submit" form={formId} variant="primary" loading={busy}>
              Import
            </Button>
          </>
        )
      }
    >
      {result ? (
        <ImportSummary result={result} />
      ) : (
        <form id={formId} onSubmit={submit} className="space-y-3" noValidate>
          <Field id="import-json" label="Configuration (JSON)" error={error || undefined}>
            <Textarea
              data-autofocus
              rows={8}
              spellCheck={false}
              placeholder={EXAMPLE}
              className="font-mono text-[13px] md:text-[13px]"
              value={text}
              onChange={(e) => setText(e.target.value)}
            />
          </Field>
          <label className={FILE_LABEL}>
            <Upload className="size-4" aria-hidden />
            Choose a file…
            <input
              type="file"
              accept="application/json,.json"
              className="sr-only"
              data-testid="import-file"
              onChange={(e) => void pick(e.target.files?.[0])}
            />
          </label>
        </form>
      )}
    </Dialog>
  );
}

export function ImportSummary({ result }: { result: ImportResult }) {
  const { added, notUsable, problems } = result;
  return (
    <div className="space-y-4 text-sm" role="status" data-testid="import-summary">
      <section aria-label="Added">
        <h3 className="flex items-center gap-1.5 font-medium text-success-text">
          <CircleCheck className="size-4" aria-hidden />
          Added: {added.length}
        </h3>
        {added.length > 0 && (
          <ul className="mt-1 list-disc space-y-0.5 pl-6">
            {added.map((s) => (
              <li key={s.id}>
                <span className="font-medium">{s.name}</span> <span className="text-muted break-all">{s.url}</span>
              </li>
            ))}
          </ul>
        )}
        {added.length > 0 && <p className="mt-1 text-muted">Review each one’s tools on its card before they are enabled.</p>}
      </section>
      {notUsable.length > 0 && (
        <section aria-label="Not usable">
          <h3 className="flex items-center gap-1.5 font-medium text-fg">
            <CircleSlash className="size-4" aria-hidden />
            Not usable here: {notUsable.length}
          </h3>
          <ul className="mt-1 list-disc space-y-0.5 pl-6">
            {notUsable.map((s) => (
              <li key={s.name}>
                <span className="font-medium">{s.name}</span> <span className="text-muted">— {s.reason}</span>
              </li>
            ))}
          </ul>
        </section>
      )}
      {problems.length > 0 && (
        <Notice tone="warning" role="status" title={`Problems: ${problems.length}`}>
          <ul className="list-disc space-y-0.5 pl-5">
            {problems.map((p) => (
              <li key={`${p.name}-${p.field}`}>
                <span className="font-medium">{p.name}</span> ({p.field}): {p.message}
              </li>
            ))}
          </ul>
        </Notice>
      )}
      {added.length === 0 && notUsable.length === 0 && problems.length === 0 && (
        <p className="flex items-center gap-1.5 text-muted">
          <TriangleAlert className="size-4" aria-hidden />
          The configuration lists no servers.
        </p>
      )}
    </div>
  );
}
