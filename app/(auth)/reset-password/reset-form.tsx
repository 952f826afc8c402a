'use client';

import Link from 'next/link';
import { useState } from 'react';

import { api, ApiError } from '@/app/_components/api';
import { NewPasswordInput } from '@/app/_components/auth/new-password-input';
import { Button, Card, Field, Notice } from '@/app/_components/ui';

/** The new password, twice, on a card; on success a notice in its place: every session of the account has ended. */
export function ResetForm({ token }: { token: string }) {
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const [done, setDone] = useState(false);

  async function submit(e: React.FormEvent) {
    e.preventDefault();
    if (password !== repeat) return setError('The two passwords differ. Type the same one twice.');
    setBusy(true);
    setError('');
    try {
      await api('/api/account/reset-password', { method: 'POST', body: { token, password } });
      setDone(true);
    } catch (err) {
      setError(err instanceof ApiError ? err.message : 'Could not set the password.');
    } finally {
      setBusy(false);
    }
  }

  if (done) {
    return (
      <Notice tone="success" role="status">
        Your password is set and every session was signed out.{' '}
        <Link href="/sign-in" className="rounded-sm font-medium underline underline-offset-2">
          Sign in
        </Link>{' '}
        with the new one.
      </Notice>
    );
  }
  return (
    <Card className="p-6 max-sm:px-5">
      <form onSubmit={submit} className="space-y-4">
        <Field id="reset-password" label="New password" hint="At least 8 characters.">
          <NewPasswordInput value={password} onChange={setPassword} />
        </Field>
        <Field id="reset-repeat" label="New password again">
          <NewPasswordInput value={repeat} onChange={setRepeat} />
        </Field>
        {error && <Notice tone="error">{error}</Notice>}
        <Button type="submit" variant="primary" size="lg" fullWidth loading={busy} className="mt-2">
          Set password
        </Button>
      </form>
    </Card>
  );
}
