'use client';

import { KeyRound, Plus } from 'lucide-react';
import { useState } from 'react';

import { api, ApiError } from '@/app/_components/api';
import { ToolPicker } from '@/app/_components/mcp-clients/tool-picker';
import { Badge, Button, CardBody, CardFooter, CopyField, Field, Input, Notice, Select } from '@/app/_components/ui';
import { ACCESS_TOKEN_EXPIRIES, type AccessTokenExpiry } from '@/db/vocabulary';
import type { AccessTokenView } from '@/lib/account/access-tokens';
import type { PickableTool } from '@/lib/gateway/catalog';

import { EditToolsDialog } from './edit-tools-dialog';
import { ExposedTools, ExposureActions } from './exposure-row';
import { McpEndpointField } from './mcp-endpoint-field';
import { RevokeTokenDialog } from './revoke-token-dialog';
import { Section } from './ui';
import { When } from './when';

const EXPIRY_LABELS: Record<AccessTokenExpiry | 'never', string> = {
  '7d': '7 days',
  '30d': '30 days',
  '90d': '90 days',
  '1y': '1 year',
  never: 'No expiry',
};
const EXPIRY_CHOICES = [...ACCESS_TOKEN_EXPIRIES, 'never'] as const;
type ExpiryChoice = (typeof EXPIRY_CHOICES)[number];

/**
 * Personal access tokens for Switchboard's MCP endpoint: make one exposing the tools picked
 * (shown once), see the ones that work and what they expose, change that, revoke them.
 */
export function TokensSection({ initial, tools }: { initial: AccessTokenView[]; tools: PickableTool[] }) {
  const [tokens, setTokens] = useState(initial);
  const [picked, setPicked] = useState<string[]>([]);
  const [editing, setEditing] = useState<AccessTokenView | null>(null);
  const [name, setName] = useState('');
  const [expiry, setExpiry] = useState<ExpiryChoice>('30d');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<{ text: string; field?: string } | null>(null);
  const [created, setCreated] = useState<{ token: string; name: string } | null>(null);
  const [revoking, setRevoking] = useState<AccessTokenView | null>(null);

  async function refresh() {
    setTokens((await api<{ tokens: AccessTokenView[] }>('/api/account/tokens')).tokens);
  }

  async function create(e: React.FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const body = { name, expiresIn: expiry === 'never' ? null : expiry, tools: picked };
      const made = await api<{ token: string; name: string }>('/api/account/tokens', { method: 'POST', body });
      setCreated({ token: made.token, name: made.name });
      setName('');
      setPicked([]);
      await refresh();
    } catch (err) {
      setError(err instanceof ApiError ? { text: err.message, field: err.field } : { text: 'Could not create the token.' });
    } finally {
      setBusy(false);
    }
  }

  return (
    <Section
      id="tokens-heading"
      title="Personal access tokens"
      icon={KeyRound}
      description={
        <>
          A token lets an MCP client — Claude Code, VS Code, Cursor, your own agent or script — use the tools you pick for it, through
          Switchboard&rsquo;s MCP endpoint, under your consent rules. Every call is in your activity log under the token&rsquo;s name. Give
          each one a name you will recognise, and revoke it when it is no longer used.
        </>
      }
    >
      <CardBody className="pb-4">
        <McpEndpointField />
      </CardBody>
      {created && (
        <CardBody className="space-y-3 pb-4" data-testid="token-created">
          <CopyField label={`Your new token “${created.name}”`} id="token-value" value={created.token} copyLabel="Copy token" />
          <Notice tone="warning" role="status">
            Copy it now: <strong className="font-semibold">you won’t see it again.</strong> Only a fingerprint of it is kept, so a lost
            token cannot be shown again; revoke it and create another.
          </Notice>
          <Button size="sm" onClick={() => setCreated(null)}>
            I have copied it
          </Button>
        </CardBody>
      )}
      <CardBody className="py-1">
        {tokens.length === 0 ? (
          <p className="py-3 text-sm text-faint">No tokens yet.</p>
        ) : (
          <ul className="divide-y divide-border" data-testid="token-list" aria-label="Your personal access tokens">
            {tokens.map((t) => (
              <li key={t.id} className="flex flex-wrap items-center gap-3 py-3">
                <div className="min-w-0 flex-1">
                  <p className="flex flex-wrap items-center gap-x-2 gap-y-1 text-sm font-medium text-fg">
                    <span className="min-w-0 break-words">{t.name}</span>
                    <Badge>
                      <span className="font-mono">{t.prefix}…</span>
                    </Badge>
                  </p>
                  <p className="mt-0.5 flex flex-col text-xs leading-5 text-faint sm:flex-row sm:flex-wrap sm:gap-x-1.5">
                    <span>
                      Created <When iso={t.createdAt} />
                    </span>
                    <span className="max-sm:hidden" aria-hidden>
                      ·
                    </span>
                    <span>
                      {t.lastUsedAt ? (
                        <>
                          Last used <When iso={t.lastUsedAt} />
                        </>
                      ) : (
                        'Never used'
                      )}
                    </span>
                    <span className="max-sm:hidden" aria-hidden>
                      ·
                    </span>
                    <span>
                      {t.expiresAt ? (
                        <>
                          Expires <When iso={t.expiresAt} />
                        </>
                      ) : (
                        'Never expires'
                      )}
                    </span>
                  </p>
                  <ExposedTools tools={t.tools} agentTool={t.agentTool} testId="token-tools" />
                </div>
                <ExposureActions name={t.name} onTools={() => setEditing(t)} onRevoke={() => setRevoking(t)} />
              </li>
            ))}
          </ul>
        )}
      </CardBody>
      <form onSubmit={create}>
        <CardFooter className="items-end">
          <Field label="Token name" id="token-name" error={error?.field === 'name' ? error.text : undefined} className="min-w-48 flex-1">
            <Input value={name} onChange={(e) => setName(e.target.value)} maxLength={100} placeholder="e.g. CI, laptop" required />
          </Field>
          <Field label="Expires after" id="token-expiry">
            <Select value={expiry} onChange={(e) => setExpiry(EXPIRY_CHOICES.find((c) => c === e.target.value) ?? '30d')}>
              {EXPIRY_CHOICES.map((c) => (
                <option key={c} value={c}>
                  {EXPIRY_LABELS[c]}
                </option>
              ))}
            </Select>
          </Field>
          <div className="w-full space-y-1.5">
            <p className="text-sm font-medium text-fg" id="token-tools-label">
              Tools it exposes{' '}
              <span className="font-normal text-faint">({picked.length === 0 ? 'none yet' : `${picked.length} picked`})</span>
            </p>
            <ToolPicker tools={tools} value={picked} onChange={setPicked} idPrefix="new-token" labelledBy="token-tools-label" />
            <p className="text-xs text-faint">A call that needs your approval waits in Other clients until you allow or deny it there.</p>
          </div>
          <Button type="submit" icon={Plus} loading={busy}>
            Create token
          </Button>
          {error && error.field !== 'name' && (
            <Notice tone="error" className="w-full">
              {error.text}
            </Notice>
          )}
        </CardFooter>
      </form>
      {editing && <EditToolsDialog token={editing} tools={tools} onClose={() => setEditing(null)} onSaved={refresh} />}
      <RevokeTokenDialog
        token={revoking}
        onClose={() => setRevoking(null)}
        onRevoked={refresh}
        description="Anything using this token stops working at once. This cannot be undone."
        confirmLabel="Revoke token"
        failure="Could not revoke the token."
      />
    </Section>
  );
}
