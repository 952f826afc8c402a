'use client';

import { useEffect, useState } from 'react';

// One request per page load: two concurrent requests without the cookie would each mint a
// token, and the form could end up holding the one whose cookie lost.
let pending: Promise<string> | undefined;

function fetchCsrfToken(): Promise<string> {
  pending ??= fetch('/api/auth/csrf', { cache: 'no-store' })
    .then((r) => r.json())
    .then((j: { csrfToken?: string }) => j.csrfToken ?? '')
    .catch(() => {
      pending = undefined;
      return '';
    });
  return pending;
}

/** Auth.js's CSRF token (double-submit cookie), needed by its sign-in and sign-out forms. */
export function useCsrfToken(): string {
  const [token, setToken] = useState('');
  useEffect(() => {
    let live = true;
    void fetchCsrfToken().then((t) => live && setToken(t));
    return () => {
      live = false;
    };
  }, []);
  return token;
}
