import path from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { alias: { '@': path.resolve(import.meta.dirname) } },
  test: {
    include: ['lib/**/*.test.ts', 'db/**/*.test.ts', 'scripts/**/*.test.ts', 'test/**/*.test.ts', 'app/**/*.test.ts'],
    // The fault suite runs production servers after a build: `npm run test:faults` (vitest.faults.config.ts).
    exclude: ['**/node_modules/**', 'test/faults/**'],
    environment: 'node',
    globalSetup: ['./test/global-setup.ts'],
    // lib/config is read again after each vi.stubEnv / vi.unstubAllEnvs.
    setupFiles: ['./test/config-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Cheap password hashes (lib/auth/password.ts says why); the standard cost has its own test.
    // A fixed audit key (lib/audit/key.ts): DB suites also run on Postgres, where one is required.
    env: { PASSWORD_HASH_COST: 'test', AUDIT_KEY: 'dGVzdC1hdWRpdC1rZXktMzItYnl0ZXMtbG9uZy0hISE=' },
  },
});
