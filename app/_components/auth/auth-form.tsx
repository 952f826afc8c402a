'use client';

import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useEffect, useRef, useState } from 'react';

import type { SsoProvider } from '@/lib/auth/providers';
import type { SsoRefusal } from '@/lib/auth/sso-link';

import { LogoMark } from '../shell/logo';
import { Button, Card, Field, Input, Notice } from '../ui/index';
import { useCsrfToken } from '../use-csrf-token';
import { MIN_PASSWORD_LENGTH } from './new-password-input';
import { safeNextPath, withNext } from './next-path';
import { SsoButtons } from './sso-buttons';

// Why single sign-on refused (lib/auth/sso-link.ts): every refusal has its words.
const SSO_ERRORS: Record<SsoRefusal, string> = {
  sso_email_unverified:
    'An account with this email already exists, and your sign-in provider did not confirm that the address is yours, ' +
    'so it was not linked. Sign in the way you did before, or ask your administrator to verify your email at the provider.',
  sso_no_email: 'Your sign-in provider did not share an email address, which a new account needs. Ask your administrator to release it.',
};

const SIGN_IN_ERRORS: Record<string, string> = {
  credentials: 'That email and password do not match an account.',
  rate_limited: 'Too many failed attempts. Wait a few minutes, then try again.',
  ...SSO_ERRORS,
  // Auth.js's own codes (?error=) for what went wrong at the provider or on its way back.
  OAuthCallbackError: 'The sign-in provider did not complete the sign-in. Try again.',
  AccessDenied: 'Sign-in was refused.',
  Configuration: 'Sign-in could not be completed: the sign-in provider may be unreachable. Try again, or ask your administrator.',
};

export function AuthForm({
  mode,
  errorCode,
  providers,
  password = true,
  next = null,
}: {
  mode: 'sign-in' | 'sign-up';
  errorCode?: string;
  /** Single sign-on buttons, above the email form. */
  providers: SsoProvider[];
  /** Email + password sign-in (AUTH_PASSWORD): off, the page offers only the providers. */
  password?: boolean;
  /** Where to go once signed in (already checked by safeNextPath); the home page otherwise. */
  next?: string | null;
}) {
  const callbackUrl = next ?? '/';
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
  useKeepNextThroughFailedSignIn(signIn, next, errorCode);
  return (
    <main className="flex min-h-full flex-col items-center justify-center px-4 py-12">
      <div className="w-full max-w-sm">
        <div className="mb-8 flex flex-col items-center text-center">
          <LogoMark className="mb-4 size-11 shadow-card [border-radius:22%]" />
          <h1 className="text-2xl font-semibold tracking-tight">{signIn ? 'Sign in to Switchboard' : 'Create your account'}</h1>
          <p className="mt-1.5 text-[15px] text-muted">Chat with Claude. You decide which tools run.</p>
        </div>
        <Card className="p-6 max-sm:px-5">
          {error && (
            <Notice tone="error" className="mb-5">
              {error}
            </Notice>
          )}
          {providers.length > 0 && (
            <SsoButtons
              providers={providers}
              csrfToken={csrfToken}
              callbackUrl={callbackUrl}
              onStart={() => {
                rememberNext(next);
                setError('');
              }}
              onError={setError}
            />
          )}
          {providers.length > 0 && password && (
            <div className="my-5 flex items-center gap-3 text-xs text-muted" aria-hidden>
              <span className="h-px flex-1 bg-border" />
              or with your email
              <span className="h-px flex-1 bg-border" />
            </div>
          )}
          {!signIn && password && (
            <form onSubmit={onSignUp} className="space-y-4">
              <Field label="Name" id="field-name">
                <Input name="name" autoComplete="name" />
              </Field>
              <Field label="Email" id="field-email">
                <Input name="email" type="email" autoComplete="email" required />
              </Field>
              <Field label="Password" id="field-password" hint="At least 8 characters.">
                <Input name="password" type="password" autoComplete="new-password" minLength={MIN_PASSWORD_LENGTH} required />
              </Field>
              <SubmitButton busy={busy} waiting={!csrfToken}>
                Create account
              </SubmitButton>
            </form>
          )}
          {/* Sign-in posts straight to Auth.js; sign-up reuses it, hidden, after creating the account. */}
          {password && (
            <form
              ref={formRef}
              method="post"
              action="/api/auth/callback/credentials"
              className={signIn ? 'space-y-4' : 'hidden'}
              onSubmit={() => {
                rememberNext(next);
                setBusy(true);
              }}
            >
              <input type="hidden" name="csrfToken" value={csrfToken} />
              <input type="hidden" name="callbackUrl" value={callbackUrl} />
              {signIn ? (
                <>
                  <Field label="Email" id="field-email">
                    <Input name="email" type="email" autoComplete="email" required />
                  </Field>
                  <Field label="Password" id="field-password">
                    <Input name="password" type="password" autoComplete="current-password" required />
                  </Field>
                  <SubmitButton busy={busy} waiting={!csrfToken}>
                    Sign in
                  </SubmitButton>
                </>
              ) : (
                <>
                  <input type="hidden" name="email" />
                  <input type="hidden" name="password" />
                </>
              )}
            </form>
          )}
        </Card>
        <p className="mt-6 text-center text-sm text-muted">
          {!password ? (
            <>New here? Continuing with {providers.map((p) => p.name).join(' or ')} creates your account.</>
          ) : signIn ? (
            <>
              New here?{' '}
              <Link href={withNext('/sign-up', next)} className={LINK}>
                Create an account
              </Link>
            </>
          ) : (
            <>
              Already have an account?{' '}
              <Link href={withNext('/sign-in', next)} className={LINK}>
                Sign in
              </Link>
            </>
          )}
        </p>
      </div>
    </main>
  );
}

// Auth.js answers a failed sign-in with /sign-in?error=… and drops where the person was going:
// the tab remembers it from the submit, and the error page puts it back into the URL.
const NEXT_KEY = 'switchboard.sign-in-next';

function rememberNext(next: string | null) {
  try {
    if (next) sessionStorage.setItem(NEXT_KEY, next);
    else sessionStorage.removeItem(NEXT_KEY);
  } catch {
    // Storage refused (private mode): a failed sign-in then lands on the home page afterwards.
  }
}

function useKeepNextThroughFailedSignIn(signIn: boolean, next: string | null, errorCode: string | undefined) {
  const router = useRouter();
  useEffect(() => {
    if (!signIn || next) return;
    let saved: string | null = null;
    try {
      saved = errorCode ? safeNextPath(sessionStorage.getItem(NEXT_KEY)) : null;
      // A fresh sign-in page forgets a destination from an earlier visit.
      if (!errorCode) sessionStorage.removeItem(NEXT_KEY);
    } catch {
      return;
    }
    if (!saved) return;
    const params = new URLSearchParams(window.location.search);
    params.set('next', saved);
    router.replace(`/sign-in?${params}`);
  }, [signIn, next, errorCode, router]);
}

const LINK = 'rounded-sm font-medium text-accent-text underline-offset-2 hover:underline';

/** Disabled until Auth.js's CSRF token has loaded (`waiting`); shows a spinner while the form goes off. */
function SubmitButton({ busy, waiting, children }: { busy: boolean; waiting: boolean; children: React.ReactNode }) {
  return (
    <Button type="submit" variant="primary" size="lg" fullWidth loading={busy} disabled={waiting} className="mt-2">
      {children}
    </Button>
  );
}
