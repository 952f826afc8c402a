'use client';

import { Save } from 'lucide-react';
import { useState } from 'react';

import { api, ApiError } from '@/app/_components/api';
import { Button, Field, Notice, Select, Switch, Textarea } from '@/app/_components/ui';
import type { StoredOrgPolicy } from '@/db/stored-json';
import { GRANT_EXPIRIES, POLICY_HINTS, type GrantExpiry, type PolicyHint } from '@/db/vocabulary';

const EXPIRY_LABEL: Record<GrantExpiry, string> = { '1h': '1 hour', '12h': '12 hours', session: 'Until sign-out (no limit)' };
const HINT_LABEL: Record<PolicyHint, string> = {
  destructiveHint: 'Tools that may be destructive (unless a trusted server says otherwise)',
  openWorldHint: 'Tools that reach outside systems (unless a trusted server says otherwise)',
};

const lines = (text: string) =>
  text
    .split(/[\n,]/)
    .map((l) => l.trim())
    .filter(Boolean);

/** The organization's policy as a form; saving applies it at the next step of every member's conversations. */
export function PolicyForm({ orgId, initial }: { orgId: string; initial: StoredOrgPolicy }) {
  const [allowAll, setAllowAll] = useState(initial.tools.allow === null);
  const [allow, setAllow] = useState((initial.tools.allow ?? []).join('\n'));
  const [deny, setDeny] = useState(initial.tools.deny.join('\n'));
  const [maxGrant, setMaxGrant] = useState<GrantExpiry>(initial.maxGrant);
  const [autoAllowed, setAutoAllowed] = useState(initial.autoApprove.allowed);
  const [neverFor, setNeverFor] = useState<PolicyHint[]>(initial.autoApprove.neverFor);
  const [ownServers, setOwnServers] = useState(initial.ownServers.allowed);
  const [anyHost, setAnyHost] = useState(initial.ownServers.hosts === null);
  const [hosts, setHosts] = useState((initial.ownServers.hosts ?? []).join('\n'));
  const [shareAnyone, setShareAnyone] = useState(initial.shares.anyone);
  const [shareDetails, setShareDetails] = useState(initial.shares.toolDetails);
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState<{ tone: 'success' | 'error'; text: string } | null>(null);

  async function save(e: React.FormEvent) {
    e.preventDefault();
    setBusy(true);
    setStatus(null);
    try {
      await api(`/api/orgs/${orgId}/policy`, {
        method: 'PUT',
        body: {
          tools: { allow: allowAll ? null : lines(allow), deny: lines(deny) },
          maxGrant,
          autoApprove: { allowed: autoAllowed, neverFor },
          ownServers: { allowed: ownServers, hosts: anyHost ? null : lines(hosts) },
          shares: { anyone: shareAnyone, toolDetails: shareDetails },
        },
      });
      setStatus({ tone: 'success', text: 'Saved. It applies from the next step of every member’s conversations.' });
    } catch (err) {
      setStatus({ tone: 'error', text: err instanceof ApiError ? err.message : 'Could not save the policy.' });
    } finally {
      setBusy(false);
    }
  }

  return (
    <form onSubmit={save} className="space-y-6" data-testid="policy-form">
      <Group
        title="Tools"
        hint="Name a server by its namespace (github) or one tool by its namespaced name (github__create_issue), one per line."
      >
        <Toggle label="Members may enable any tool" checked={allowAll} onChange={setAllowAll} />
        {!allowAll && (
          <Field label="Only these servers and tools" id="policy-allow">
            <Textarea
              value={allow}
              onChange={(e) => setAllow(e.target.value)}
              rows={3}
              spellCheck={false}
              className="font-mono text-[13px]"
            />
          </Field>
        )}
        <Field
          label="Never these servers and tools"
          id="policy-deny"
          hint={
            'Wins over the list above. Advisory only: entries match server names, which members can rename. ' +
            'To enforce, list what is allowed instead.'
          }
        >
          <Textarea value={deny} onChange={(e) => setDeny(e.target.value)} rows={3} spellCheck={false} className="font-mono text-[13px]" />
        </Field>
      </Group>

      <Group title="Grants and approval">
        <Field label="Longest a grant may last" id="policy-max-grant">
          <Select value={maxGrant} onChange={(e) => setMaxGrant(e.target.value as GrantExpiry)} className="max-w-xs">
            {GRANT_EXPIRIES.map((x) => (
              <option key={x} value={x}>
                {EXPIRY_LABEL[x]}
              </option>
            ))}
          </Select>
        </Field>
        <Toggle
          label="Tools may run without asking"
          description="Auto-approve, “Allow for this session”, and read-only tools of trusted servers. Off: every call asks."
          checked={autoAllowed}
          onChange={setAutoAllowed}
        />
        {autoAllowed && (
          <fieldset className="space-y-2">
            <legend className="text-sm font-medium text-fg">Always ask for</legend>
            {POLICY_HINTS.map((hint) => (
              <label key={hint} className="flex items-start gap-2 text-sm text-fg">
                <input
                  type="checkbox"
                  className="mt-0.5 size-4 accent-[var(--color-accent)]"
                  checked={neverFor.includes(hint)}
                  onChange={(e) => setNeverFor(e.target.checked ? [...neverFor, hint] : neverFor.filter((h) => h !== hint))}
                />
                {HINT_LABEL[hint]}
              </label>
            ))}
          </fieldset>
        )}
      </Group>

      <Group title="Servers of their own">
        <Toggle label="Members may add their own servers" checked={ownServers} onChange={setOwnServers} />
        {ownServers && (
          <>
            <Toggle label="At any host" checked={anyHost} onChange={setAnyHost} />
            {!anyHost && (
              <Field
                label="Only at these hosts"
                id="policy-hosts"
                hint="mcp.example.com, or *.example.com for every host under it; one per line."
              >
                <Textarea
                  value={hosts}
                  onChange={(e) => setHosts(e.target.value)}
                  rows={3}
                  spellCheck={false}
                  className="font-mono text-[13px]"
                />
              </Field>
            )}
          </>
        )}
      </Group>

      <Group title="Share links">
        <Toggle
          label="Public links"
          description="Off: a link opens only for people signed in to this Switchboard."
          checked={shareAnyone}
          onChange={setShareAnyone}
        />
        <Toggle label="Links may include tool arguments and results" checked={shareDetails} onChange={setShareDetails} />
      </Group>

      {status && (
        <Notice tone={status.tone} role={status.tone === 'error' ? 'alert' : 'status'} data-testid="policy-status">
          {status.text}
        </Notice>
      )}
      <Button type="submit" variant="primary" loading={busy}>
        <Save className="size-4 shrink-0" aria-hidden />
        Save policy
      </Button>
    </form>
  );
}

function Group({ title, hint, children }: { title: string; hint?: string; children: React.ReactNode }) {
  return (
    <fieldset className="space-y-3 border-t border-border pt-4 first:border-t-0 first:pt-0">
      <legend className="text-[13px] font-semibold tracking-wide text-muted uppercase">{title}</legend>
      {hint && <p className="text-xs leading-5 text-faint">{hint}</p>}
      {children}
    </fieldset>
  );
}

function Toggle({
  label,
  description,
  checked,
  onChange,
}: {
  label: string;
  description?: string;
  checked: boolean;
  onChange: (v: boolean) => void;
}) {
  return (
    <div className="flex items-start justify-between gap-4">
      <div className="min-w-0">
        <p className="text-sm text-fg">{label}</p>
        {description && <p className="mt-0.5 text-xs leading-5 text-faint">{description}</p>}
      </div>
      <Switch label={label} checked={checked} onChange={onChange} />
    </div>
  );
}
