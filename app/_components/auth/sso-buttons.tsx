'use client';

import { KeyRound } from 'lucide-react';
import { useState } from 'react';

import type { SsoProvider } from '@/lib/auth/providers';

import { Button } from '../ui/index';

/**
 * "Continue with <name>" for each single sign-on provider. Auth.js starts a sign-in on a POST
 * (with its CSRF token) and answers with a redirect to the provider. The button asks for that
 * redirect as JSON (`X-Auth-Return-Redirect`) and then navigates there, rather than posting a
 * form: a form's redirect is held to the page's CSP `form-action`, which would have to name
 * every provider's authorization origin — not always the issuer's (Cognito, custom domains) —
 * while a navigation is not, so the CSP keeps `form-action 'self'`.
 */
export function SsoButtons({
  providers,
  csrfToken,
  callbackUrl,
  onStart,
  onError,
}: {
  providers: SsoProvider[];
  csrfToken: string;
  callbackUrl: string;
  /** Before leaving for the provider (the page remembers where the person was going). */
  onStart: () => void;
  onError: (message: string) => void;
}) {
  const [busy, setBusy] = useState<string | null>(null);

  async function start(e: React.FormEvent<HTMLFormElement>, id: string) {
    e.preventDefault();
    setBusy(id);
    onStart();
    const res = await fetch(`/api/auth/signin/${id}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Auth-Return-Redirect': '1' },
      body: new URLSearchParams({ csrfToken, callbackUrl }),
    }).catch(() => null);
    const url = res?.ok ? ((await res.json().catch(() => null)) as { url?: unknown } | null)?.url : undefined;
    if (typeof url === 'string') {
      window.location.assign(url);
      return;
    }
    setBusy(null);
    onError('Could not start the sign-in. Reload the page and try again.');
  }

  return (
    <div className="space-y-2.5">
      {providers.map((p) => (
        <form key={p.id} method="post" action={`/api/auth/signin/${p.id}`} onSubmit={(e) => void start(e, p.id)}>
          <Button
            type="submit"
            variant="secondary"
            size="lg"
            fullWidth
            disabled={!csrfToken || (busy !== null && busy !== p.id)}
            loading={busy === p.id}
            icon={p.id === 'oidc' ? KeyRound : undefined}
          >
            Continue with {p.name}
          </Button>
        </form>
      ))}
    </div>
  );
}
