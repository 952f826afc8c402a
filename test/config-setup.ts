import { vi } from 'vitest';

import { rereadConfig } from '@/lib/config';

// No background OAuth refresh in tests (a route test's getRuntime() would start a 60 s timer);
// the tests that need it call refreshExpiringCredentials themselves.
process.env.OAUTH_REFRESH_INTERVAL_MS ??= '0';
rereadConfig();

// lib/config parses process.env once per process. Tests change it with vi.stubEnv and put it
// back with vi.unstubAllEnvs, so after either the configuration is read again: a test sees the
// environment it set, as the app would see it at start-up. (A test that assigns process.env
// directly calls rereadConfig() itself.)
for (const name of ['stubEnv', 'unstubAllEnvs'] as const) {
  const original = vi[name].bind(vi) as (...args: unknown[]) => unknown;
  Object.assign(vi, {
    [name]: (...args: unknown[]) => {
      const result = original(...args);
      rereadConfig();
      return result;
    },
  });
}
