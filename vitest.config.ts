import path from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { alias: { '@': path.resolve(import.meta.dirname) } },
  test: {
    include: ['lib/**/*.test.ts', 'db/**/*.test.ts', 'scripts/**/*.test.ts', 'test/**/*.test.ts', 'app/**/*.test.ts'],
    environment: 'node',
    globalSetup: ['./test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Cheap password hashes (lib/auth/password.ts says why); the standard cost has its own test.
    env: { PASSWORD_HASH_COST: 'test' },
  },
});
