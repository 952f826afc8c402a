'use client';

import Link from 'next/link';
import { useState } from 'react';

import { api, ApiError } from '@/app/_components/api';

const INPUT = [
  'w-full rounded-lg border border-stone-300 px-3',
  'py-2 text-[15px] outline-none focus:border-indigo-500 focus:ring-2 focus:ring-indigo-200',
].join(' ');

/** The new password, twice; on success every session of the account has ended. */
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
      <p role="status" className="rounded-lg bg-emerald-50 px-3 py-2 text-sm text-emerald-900">
        Your password is set and every session was signed out.{' '}
        <Link href="/sign-in" className="font-medium underline">
          Sign in
        </Link>{' '}
        with the new one.
      </p>
    );
  }
  return (
    <form onSubmit={submit} className="space-y-4">
      <div>
        <label htmlFor="reset-password" className="mb-1 block text-sm font-medium text-stone-700">
          New password
        </label>
        <input
          id="reset-password"
          type="password"
          autoComplete="new-password"
          required
          minLength={8}
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          className={INPUT}
        />
        <p className="mt-1 text-xs text-stone-500">At least 8 characters.</p>
      </div>
      <div>
        <label htmlFor="reset-repeat" className="mb-1 block text-sm font-medium text-stone-700">
          New password again
        </label>
        <input
          id="reset-repeat"
          type="password"
          autoComplete="new-password"
          required
          minLength={8}
          value={repeat}
          onChange={(e) => setRepeat(e.target.value)}
          className={INPUT}
        />
      </div>
      {error && (
        <p role="alert" className="rounded-lg bg-red-50 px-3 py-2 text-sm text-red-800">
          {error}
        </p>
      )}
      <button
        type="submit"
        disabled={busy}
        className="w-full rounded-lg bg-indigo-600 px-3 py-2 text-sm font-semibold text-white hover:bg-indigo-700 disabled:opacity-60"
      >
        Set password
      </button>
    </form>
  );
}
