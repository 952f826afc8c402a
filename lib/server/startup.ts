import { getAuditKeyring } from '@/lib/audit/key';
import { readConfig } from '@/lib/config';
import { getSecretBox } from '@/lib/secrets/secret-box';

import { getRuntime } from './runtime';

/**
 * Checks the configuration — every variable (lib/config), then the keys it needs (AUTH_SECRET,
 * SECRETS_KEY and AUDIT_KEY with DATABASE_URL) — and opens and migrates the database, so a
 * misconfiguration stops the start with a clear message instead of failing the first request.
 */
export async function startServer(): Promise<void> {
  try {
    readConfig();
    await getSecretBox();
    await getAuditKeyring();
    const rt = await getRuntime();
    console.log(`[switchboard] database ready (${rt.handle.kind}); model: ${rt.modelConfig.label}`);
  } catch (err) {
    console.error(`[switchboard] cannot start: ${(err as Error).message}`);
    process.exit(1);
  }
}
