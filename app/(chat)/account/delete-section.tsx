'use client';

import { useRouter } from 'next/navigation';
import { useState } from 'react';

import { api, ApiError } from '@/app/_components/api';

import { Button, Notice, Section, TextField } from './ui';

/** Delete the account: the person types their email to confirm. */
export function DeleteSection({ email }: { email: string }) {
  const router = useRouter();
  const [typed, setTyped] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const matches = typed.trim().toLowerCase() === email.toLowerCase();

  async function submit(e: React.FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError('');
    try {
      await api('/api/account', { method: 'DELETE', body: { confirm: typed } });
      router.replace('/sign-in');
      router.refresh();
    } catch (err) {
      setError(err instanceof ApiError ? err.message : 'Could not delete the account.');
      setBusy(false);
    }
  }

  return (
    <Section id="delete-heading" title="Delete account">
      <p className="mb-4 text-sm text-stone-600">
        This deletes your account, every conversation with its messages and tool calls, your notes and your sessions. It cannot be undone;
        download your data first if you want a copy.
      </p>
      <form onSubmit={submit} className="space-y-4">
        <TextField
          id="delete-confirm"
          label={`Type ${email} to confirm`}
          type="email"
          autoComplete="off"
          value={typed}
          onChange={setTyped}
        />
        {error && <Notice kind="error">{error}</Notice>}
        <Button kind="danger" disabled={busy || !matches}>
          Delete my account
        </Button>
      </form>
    </Section>
  );
}
