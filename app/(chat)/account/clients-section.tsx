'use client';

import { PlugZap } from 'lucide-react';
import { useState } from 'react';

import { api } from '@/app/_components/api';
import { Badge, CardBody } from '@/app/_components/ui';
import type { PickableTool } from '@/lib/gateway/catalog';
import type { ConnectedClientView } from '@/lib/oauth-server/connected-clients';

import { EditToolsDialog } from './edit-tools-dialog';
import { ExposedTools, ExposureActions } from './exposure-row';
import { RevokeTokenDialog } from './revoke-token-dialog';
import { Section } from './ui';
import { When } from './when';

/**
 * MCP clients the person connected through Switchboard's consent screen (OAuth): what each
 * exposes, when it was connected and last used; change its tools or revoke it (cut off at its
 * next request). Revoke and tools go through the token routes: a connection is a token row.
 */
export function ClientsSection({ initial, tools }: { initial: ConnectedClientView[]; tools: PickableTool[] }) {
  const [clients, setClients] = useState(initial);
  const [editing, setEditing] = useState<ConnectedClientView | null>(null);
  const [revoking, setRevoking] = useState<ConnectedClientView | null>(null);

  async function refresh() {
    setClients((await api<{ clients: ConnectedClientView[] }>('/api/account/clients')).clients);
  }

  return (
    <Section
      id="connected-clients-heading"
      title="Connected clients"
      icon={PlugZap}
      description={
        <>
          MCP clients you allowed by signing in from them (OAuth). Each sees and calls only the tools you picked for it, under your consent
          rules; its calls are in your activity log under its name.
        </>
      }
    >
      <CardBody className="py-1">
        {clients.length === 0 ? (
          <p className="py-3 text-sm text-faint">
            No connected clients. Add Switchboard&rsquo;s MCP endpoint to a client and sign in from it.
          </p>
        ) : (
          <ul className="divide-y divide-border" data-testid="client-list" aria-label="Your connected clients">
            {clients.map((c) => (
              <li key={c.id} className="flex flex-wrap items-center gap-3 py-3">
                <div className="min-w-0 flex-1">
                  <p className="flex flex-wrap items-center gap-x-2 gap-y-1 text-sm font-medium text-fg">
                    <span className="min-w-0 break-words">{c.name}</span>
                    <Badge tone={c.kind === 'metadata_document' ? 'neutral' : 'warning'}>
                      <span className="font-mono">{c.host}</span>
                    </Badge>
                  </p>
                  <p className="mt-0.5 flex flex-col text-xs leading-5 text-faint sm:flex-row sm:flex-wrap sm:gap-x-1.5">
                    <span>
                      Connected <When iso={c.createdAt} />
                    </span>
                    <span className="max-sm:hidden" aria-hidden>
                      ·
                    </span>
                    <span>
                      {c.lastUsedAt ? (
                        <>
                          Last used <When iso={c.lastUsedAt} />
                        </>
                      ) : (
                        'Never used'
                      )}
                    </span>
                  </p>
                  <ExposedTools tools={c.tools} agentTool={c.agentTool} testId="client-tools" />
                </div>
                <ExposureActions name={c.name} onTools={() => setEditing(c)} onRevoke={() => setRevoking(c)} />
              </li>
            ))}
          </ul>
        )}
      </CardBody>
      {editing && <EditToolsDialog token={editing} tools={tools} onClose={() => setEditing(null)} onSaved={refresh} />}
      <RevokeTokenDialog
        token={revoking}
        onClose={() => setRevoking(null)}
        onRevoked={refresh}
        description="It is cut off at its next request and must be allowed again to reconnect."
        confirmLabel="Revoke client"
        failure="Could not revoke the client."
      />
    </Section>
  );
}
