'use client';

import Link from 'next/link';
import { useRef, useState } from 'react';

import { useCsrfToken } from './use-csrf-token';

const SIGN_IN_ERRORS: Record<string, string> = {
  credentials: 'That email and password do not match an account.',
  rate_limited: 'Too many failed attempts. Wait a few minutes, then try again.',
};

export function AuthForm({
  mode,
  errorCode,
  providers,
}: {
  mode: 'sign-in' | 'sign-up';
  errorCode?: string;
  providers: ('github' | 'google')[];
}) {
  const csrfToken = useCsrfToken();
  const formRef = useRef<HTMLFormElement>(null);
  const [error, setError] = useState(errorCode ? (SIGN_IN_ERRORS[errorCode] ?? 'The sign-in form expired. Please try again.') : '');
  const [busy, setBusy] = useState(false);

  // Sign-up creates the account as JSON, then submits the same credentials to the sign-in form.
  async function onSignUp(e: React.FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const data = new FormData(e.currentTarget);
    setBusy(true);
    setError('');
    const res = await fetch('/api/account', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: data.get('email'), password: data.get('password'), name: data.get('name') || undefined }),
    }).catch(() => null);
    if (!res || res.status !== 201) {
      const body = res ? await res.json().catch(() => null) : null;
      setError(body?.error?.message ?? 'Could not reach the server. Try again.');
      setBusy(false);
      return;
    }
    const form = formRef.current!;
    (form.elements.namedItem('email') as HTMLInputElement).value = String(data.get('email'));
    (form.elements.namedItem('password') as HTMLInputElement).value = String(data.get('password'));
    form.submit();
  }

  const signIn = mode === 'sign-in';
  return (
    <main className="flex min-h-full items-center justify-center px-4 py-12">
      <div className="w-full max-w-sm">
        <div className="mb-8 text-center">
          <div
            className="mx-auto mb-3 flex h-10 w-10 items-center justify-center rounded-xl bg-indigo-600 text-lg font-bold text-white"
            aria-hidden
          >
            S
          </div>
          <h1 className="text-2xl font-semibold">{signIn ? 'Sign in to Switchboard' : 'Create your account'}</h1>
          <p className="mt-1 text-sm text-stone-600">Chat with Claude. You decide which tools run.</p>
        </div>
        <div className="rounded-2xl border border-stone-200 bg-white p-6 shadow-sm">
          {error && (
            <p role="alert" className="mb-4 rounded-lg bg-red-50 px-3 py-2 text-sm text-red-800">
              {error}
            </p>
          )}
          {!signIn && (
            <form onSubmit={onSignUp} className="space-y-4">
              <Field label="Name" name="name" autoComplete="name" required={false} />
              <Field label="Email" name="email" type="email" autoComplete="email" />
              <Field
                label="Password"
                name="password"
                type="password"
                autoComplete="new-password"
                minLength={8}
                hint="At least 8 characters."
              />
              <SubmitButton busy={busy || !csrfToken}>Create account</SubmitButton>
            </form>
          )}
          {/* Sign-in posts straight to Auth.js; sign-up reuses it, hidden, after creating the account. */}
          <form
            ref={formRef}
            method="post"
            action="/api/auth/callback/credentials"
            className={signIn ? 'space-y-4' : 'hidden'}
            onSubmit={() => setBusy(true)}
          >
            <input type="hidden" name="csrfToken" value={csrfToken} />
            <input type="hidden" name="callbackUrl" value="/" />
            {signIn ? (
              <>
                <Field label="Email" name="email" type="email" autoComplete="email" />
                <Field label="Password" name="password" type="password" autoComplete="current-password" />
                <SubmitButton busy={busy || !csrfToken}>Sign in</SubmitButton>
              </>
            ) : (
              <>
                <input type="hidden" name="email" />
                <input type="hidden" name="password" />
              </>
            )}
          </form>
          {providers.length > 0 && (
            <div className="mt-6 space-y-2 border-t border-stone-200 pt-6">
              {providers.map((p) => (
                <form key={p} method="post" action={`/api/auth/signin/${p}`}>
                  <input type="hidden" name="csrfToken" value={csrfToken} />
                  <input type="hidden" name="callbackUrl" value="/" />
                  <button className="w-full rounded-lg border border-stone-300 px-3 py-2 text-sm font-medium hover:bg-stone-50">
                    Continue with {p === 'github' ? 'GitHub' : 'Google'}
                  </button>
                </form>
              ))}
            </div>
          )}
        </div>
        <p className="mt-6 text-center text-sm text-stone-600">
          {signIn ? (
            <>
              New here?{' '}
              <Link href="/sign-up" className="font-medium text-indigo-700 hover:underline">
                Create an account
              </Link>
            </>
          ) : (
            <>
              Already have an account?{' '}
              <Link href="/sign-in" className="font-medium text-indigo-700 hover:underline">
                Sign in
              </Link>
            </>
          )}
        </p>
      </div>
    </main>
  );
}

function Field(props: {
  label: string;
  name: string;
  type?: string;
  autoComplete?: string;
  required?: boolean;
  minLength?: number;
  hint?: string;
}) {
  const id = `field-${props.name}`;
  return (
    <div>
      <label htmlFor={id} className="mb-1 block text-sm font-medium text-stone-700">
        {props.label}
      </label>
      <input
        id={id}
        name={props.name}
        type={props.type ?? 'text'}
        autoComplete={props.autoComplete}
        required={props.required ?? true}
        minLength={props.minLength}
        className={[
          'w-full rounded-lg border border-stone-300 px-3',
          'py-2 text-[15px] outline-none focus:border-indigo-500 focus:ring-2 focus:ring-indigo-200',
        ].join(' ')}
      />
      {props.hint && <p className="mt-1 text-xs text-stone-500">{props.hint}</p>}
    </div>
  );
}

function SubmitButton({ busy, children }: { busy: boolean; children: React.ReactNode }) {
  return (
    <button
      type="submit"
      disabled={busy}
      className="w-full rounded-lg bg-indigo-600 px-3 py-2 text-sm font-semibold text-white hover:bg-indigo-700 disabled:opacity-60"
    >
      {children}
    </button>
  );
}
