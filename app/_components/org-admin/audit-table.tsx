'use client';

import { History } from 'lucide-react';
import { useState } from 'react';

import { OUTCOME_BADGE } from '@/app/_components/activity/activity-view';
import { api } from '@/app/_components/api';
import { Badge, Button, Notice } from '@/app/_components/ui';
import { useBusyAction } from '@/app/_components/use-busy-action';
import type { OrgAuditPage } from '@/lib/orgs/admin';

/**
 * The organization's audit view: the members' tool calls, metadata only, newest first; "Load older
 * entries" fetches the page after the last one shown (`GET /api/orgs/:id/audit?before=<next>`).
 */
export function AuditTable({ orgId, initial }: { orgId: string; initial: OrgAuditPage }) {
  const [entries, setEntries] = useState(initial.entries);
  const [next, setNext] = useState(initial.next);
  const { busy, error, act } = useBusyAction<'older'>();
  const older = () =>
    act('older', async () => {
      const page = await api<OrgAuditPage>(`/api/orgs/${orgId}/audit?before=${encodeURIComponent(next!)}`);
      setEntries((shown) => [...shown, ...page.entries.filter((e) => !shown.some((s) => s.id === e.id))]);
      setNext(page.next);
    });

  if (entries.length === 0) return <p className="py-2 text-sm text-faint">No tool calls yet.</p>;
  return (
    <div className="space-y-3">
      <table className="w-full text-sm" data-testid="org-audit">
        <thead className="text-left text-xs text-faint">
          <tr>
            <th className="py-1.5 font-medium">Time (UTC)</th>
            <th className="py-1.5 font-medium">Member</th>
            <th className="py-1.5 font-medium">Server · tool</th>
            <th className="py-1.5 text-right font-medium">Outcome</th>
          </tr>
        </thead>
        <tbody className="divide-y divide-border">
          {entries.map((e) => (
            <tr key={e.id} data-testid="org-audit-entry">
              <td className="py-2 pr-3 whitespace-nowrap tabular-nums text-muted">{e.at.slice(0, 16).replace('T', ' ')}</td>
              <td className="max-w-0 truncate py-2 pr-3">{e.email}</td>
              <td className="py-2 pr-3">
                <span className="text-muted">{e.serverName ?? e.serverId ?? '—'}</span> ·{' '}
                <span className="font-mono text-[13px]">{e.tool ?? '—'}</span>
              </td>
              <td className="py-2 text-right">
                <Badge tone={OUTCOME_BADGE[e.outcome ?? 'unknown'].tone}>{OUTCOME_BADGE[e.outcome ?? 'unknown'].label}</Badge>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {error && <Notice tone="error">{error}</Notice>}
      {next ? (
        <Button size="sm" icon={History} loading={busy === 'older'} onClick={() => void older()}>
          Load older entries
        </Button>
      ) : (
        <p className="text-xs text-faint" data-testid="org-audit-end">
          That is everything since each member joined.
        </p>
      )}
    </div>
  );
}
