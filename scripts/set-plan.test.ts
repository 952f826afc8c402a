import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

import { createUser, findUserByEmail } from '@/db/queries/users';
import { openTestDb, TEST_DATABASES } from '@/test/db';

const ROOT = path.resolve(import.meta.dirname, '..');
const TSX = path.join(ROOT, 'node_modules/.bin/tsx');

/** Runs `npm run set-plan -- …` as the operator would (the script itself, through tsx). */
async function setPlan(args: string[], env: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await promisify(execFile)(TSX, ['scripts/set-plan.ts', ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('npm run set-plan', () => {
  it('refuses a plan that is not in the vocabulary, naming the plans there are, before touching the database', async () => {
    // A DATABASE_URL nothing listens on: the refusal must come first.
    const out = await setPlan(['ada@example.test', 'gold'], { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' });
    expect(out.code).toBe(2);
    expect(out.stderr.trim()).toBe('Unknown plan "gold": a plan is one of free, pro, enterprise.');
    const usage = await setPlan(['ada@example.test']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('Usage: npm run set-plan -- <email> <free|pro|enterprise>');
  });

  const postgres = TEST_DATABASES.find((d) => d.kind === 'postgres')!;
  it.skipIf(!postgres.available)("sets a user's plan, and says so for an unknown email", async () => {
    const h = await openTestDb('postgres');
    try {
      await createUser(h.db, { email: 'plan@example.test' });
      const out = await setPlan(['Plan@Example.test', 'enterprise'], { DATABASE_URL: h.url! });
      expect(out).toMatchObject({ code: 0, stdout: 'plan@example.test is now on the enterprise plan.\n' });
      expect((await findUserByEmail(h.db, 'plan@example.test'))!.plan).toBe('enterprise');
      const missing = await setPlan(['nobody@example.test', 'free'], { DATABASE_URL: h.url! });
      expect(missing).toMatchObject({ code: 1, stderr: 'No user with email nobody@example.test.\n' });
    } finally {
      await h.close();
    }
  });
});
