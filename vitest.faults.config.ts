import path from 'node:path';
import { defineConfig } from 'vitest/config';

// `npm run test:faults`: the load and fault suite (test/faults) against real `next start`
// processes, after a production build (FAULTS_NEXT_DIST_DIR, default `.next`). One file at a time:
// each starts its own instances and peers on fixed loopback ports (3221–3229) and the machine has
// two cores. No global setup: each file makes the database it needs (test/faults/harness).
export default defineConfig({
  resolve: { alias: { '@': path.resolve(import.meta.dirname) } },
  test: {
    include: ['test/faults/**/*.test.ts'],
    environment: 'node',
    pool: 'forks',
    fileParallelism: false,
    testTimeout: 90_000,
    hookTimeout: 120_000,
    // The suite's own process opens the database too (checks, sign-up through the app).
    env: { PASSWORD_HASH_COST: 'test' },
  },
});
