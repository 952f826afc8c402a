import { getAuditKeyring } from '@/lib/audit/key';
import { auditRetentionDays } from '@/lib/audit/retention';
import { checkAuthConfig } from '@/lib/auth/check-config';
import { getSecretBox } from '@/lib/secrets/secret-box';

import { getRuntime } from './runtime';

/**
 * Opens and migrates the database and checks the configuration (e.g. AUTH_SECRET,
 * SECRETS_KEY and AUDIT_KEY with DATABASE_URL), so a misconfiguration stops the start with a clear message instead of failing
 * the first request.
 */
export async function startServer(): Promise<void> {
  try {
    checkAuthConfig();
    await getSecretBox();
    await getAuditKeyring();
    auditRetentionDays();
    const rt = await getRuntime();
    console.log(`[switchboard] database ready (${rt.handle.kind}); model: ${rt.modelConfig.label}`);
  } catch (err) {
    console.error(`[switchboard] cannot start: ${(err as Error).message}`);
    process.exit(1);
  }
}
