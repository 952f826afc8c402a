'use client';

import { useState } from 'react';

import { api, ApiError } from '@/app/_components/api';

import { Button, Notice, Section, TextField } from './ui';

/** Change password: current + new (twice); every other session ends, this one stays. */
export function PasswordSection() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [repeat, setRepeat] = useState('');
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ kind: 'error' | 'success'; text: string } | null>(null);

  async function submit(e: React.FormEvent) {
    e.preventDefault();
    if (next !== repeat) return setResult({ kind: 'error', text: 'The two new passwords differ. Type the same one twice.' });
    setBusy(true);
    setResult(null);
    try {
      const { endedSessions } = await api<{ endedSessions: number }>('/api/account/password', {
        method: 'POST',
        body: { currentPassword: current, newPassword: next },
      });
      setCurrent('');
      setNext('');
      setRepeat('');
      const others = endedSessions === 1 ? '1 other session was' : `${endedSessions} other sessions were`;
      setResult({ kind: 'success', text: `Password changed. ${others} signed out.` });
    } catch (err) {
      setResult({ kind: 'error', text: err instanceof ApiError ? err.message : 'Could not change the password.' });
    } finally {
      setBusy(false);
    }
  }

  return (
    <Section id="password-heading" title="Password">
      <form onSubmit={submit} className="space-y-4">
        <TextField
          id="current-password"
          label="Current password"
          type="password"
          autoComplete="current-password"
          value={current}
          onChange={setCurrent}
        />
        <TextField
          id="new-password"
          label="New password"
          type="password"
          autoComplete="new-password"
          minLength={8}
          hint="At least 8 characters. Every other signed-in browser will be signed out."
          value={next}
          onChange={setNext}
        />
        <TextField
          id="repeat-password"
          label="New password again"
          type="password"
          autoComplete="new-password"
          minLength={8}
          value={repeat}
          onChange={setRepeat}
        />
        {result && <Notice kind={result.kind}>{result.text}</Notice>}
        <Button disabled={busy}>Change password</Button>
      </form>
    </Section>
  );
}
