'use client';

import { UserMinus } from 'lucide-react';
import { useState } from 'react';

import { api, ApiError } from '@/app/_components/api';
import { Button, Notice, Select } from '@/app/_components/ui';
import { ORG_ROLES, type OrgRole } from '@/db/vocabulary';

export interface MemberRow {
  userId: string;
  email: string;
  name: string | null;
  role: OrgRole;
  joinedAt: string;
}

const ROLE_LABELS: Record<OrgRole, string> = { owner: 'Owner', admin: 'Admin', member: 'Member' };

/** Members and their roles: change a role, remove someone (the server refuses what the caller may not do). */
export function MembersTable({ orgId, initial, me }: { orgId: string; initial: MemberRow[]; me: string }) {
  const [members, setMembers] = useState(initial);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState<string | null>(null);

  async function act(userId: string, change: () => Promise<void>) {
    setBusy(userId);
    setError('');
    try {
      await change();
    } catch (err) {
      setError(err instanceof ApiError ? err.message : 'Could not save the change.');
    } finally {
      setBusy(null);
    }
  }
  const setRole = (m: MemberRow, role: OrgRole) =>
    act(m.userId, async () => {
      await api(`/api/orgs/${orgId}/members/${m.userId}`, { method: 'PATCH', body: { role } });
      setMembers((all) => all.map((x) => (x.userId === m.userId ? { ...x, role } : x)));
    });
  const remove = (m: MemberRow) =>
    act(m.userId, async () => {
      await api(`/api/orgs/${orgId}/members/${m.userId}`, { method: 'DELETE' });
      setMembers((all) => all.filter((x) => x.userId !== m.userId));
    });

  return (
    <div className="space-y-3">
      {error && (
        <Notice tone="error" role="alert">
          {error}
        </Notice>
      )}
      <ul className="divide-y divide-border" aria-label="Members" data-testid="members">
        {members.map((m) => (
          <li key={m.userId} className="flex items-center gap-3 py-2.5 max-sm:flex-wrap" data-testid="member">
            <div className="min-w-0 flex-1">
              <p className="truncate text-sm font-medium text-fg">
                {m.name ?? m.email}
                {m.userId === me && <span className="ml-1.5 text-xs font-normal text-faint">(you)</span>}
              </p>
              {m.name && <p className="truncate text-xs text-faint">{m.email}</p>}
            </div>
            <div className="w-36 shrink-0">
              <Select
                aria-label={`Role of ${m.email}`}
                value={m.role}
                disabled={busy === m.userId}
                onChange={(e) => void setRole(m, e.target.value as OrgRole)}
                className="h-9"
              >
                {ORG_ROLES.map((r) => (
                  <option key={r} value={r}>
                    {ROLE_LABELS[r]}
                  </option>
                ))}
              </Select>
            </div>
            <Button size="sm" variant="ghost" disabled={busy === m.userId} onClick={() => void remove(m)} aria-label={`Remove ${m.email}`}>
              <UserMinus className="size-4 shrink-0" aria-hidden />
              Remove
            </Button>
          </li>
        ))}
      </ul>
    </div>
  );
}
