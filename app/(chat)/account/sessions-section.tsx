'use client';

import { useRouter } from 'next/navigation';
import { useState } from 'react';

import { api, ApiError } from '@/app/_components/api';
import type { SessionView } from '@/lib/account/sessions';

import { Button, Notice, Section } from './ui';

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '—');

/** Where the account is signed in, and "sign out everywhere else". */
export function SessionsSection({ sessions }: { sessions: SessionView[] }) {
  const router = useRouter();
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ kind: 'error' | 'success'; text: string } | null>(null);
  const others = sessions.filter((s) => !s.current).length;

  async function signOutOthers() {
    setBusy(true);
    setResult(null);
    try {
      const { endedSessions } = await api<{ endedSessions: number }>('/api/account/sessions/others', { method: 'DELETE' });
      setResult({ kind: 'success', text: `Signed out of ${endedSessions} other session${endedSessions === 1 ? '' : 's'}.` });
      router.refresh();
    } catch (err) {
      setResult({ kind: 'error', text: err instanceof ApiError ? err.message : 'Could not sign out the other sessions.' });
    } finally {
      setBusy(false);
    }
  }

  return (
    <Section id="sessions-heading" title="Signed-in sessions">
      <ul className="divide-y divide-stone-200" data-testid="session-list">
        {sessions.map((s) => (
          <li key={s.id} className="py-3 text-sm">
            <p className="font-medium text-stone-800">
              {s.userAgent ?? 'Unknown browser'}
              {s.current && (
                <span className="ml-2 rounded-full bg-indigo-50 px-2 py-0.5 text-xs font-medium text-indigo-800">This browser</span>
              )}
            </p>
            <p className="mt-0.5 text-xs text-stone-500">
              Signed in {when(s.createdAt)} · last seen {when(s.lastSeenAt)}
            </p>
          </li>
        ))}
      </ul>
      <div className="mt-4 space-y-3">
        {result && <Notice kind={result.kind}>{result.text}</Notice>}
        <Button kind="secondary" type="button" disabled={busy || others === 0} onClick={() => void signOutOthers()}>
          Sign out everywhere else
        </Button>
      </div>
    </Section>
  );
}
