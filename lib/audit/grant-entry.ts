import type { Db } from '@/db/connection';
import type { StoredAuditGrant } from '@/db/stored-json';

import { appendAudit } from './append';
import type { AuditKeyring } from './key';

/** One change to a grant (or to a default-on tool's switch), as the grant use-cases report it. */
export type GrantChange = Omit<StoredAuditGrant, 'v' | 'kind' | 'settings' | 'sessionId'> & {
  userId: string;
  settings?: StoredAuditGrant['settings'];
  sessionId?: string | null;
};

/**
 * Logs grant changes: created, auto-approve on / off, constraint, expiry, revoked, switched off /
 * on, ended at sign-out. Pass the transaction that makes the change, so the change and its entry
 * commit together, and call this after the transaction's other writes (the chain-head lock comes
 * last). Sign-out that ends several grants passes them all at once: one lock, one turn.
 */
export async function auditGrantChanges(db: Db, keys: AuditKeyring, changes: GrantChange[]): Promise<void> {
  await appendAudit(
    db,
    keys,
    changes.map(({ userId, settings, sessionId, ...c }) => ({
      userId,
      content: { v: 1, kind: 'grant', ...c, settings: settings ?? null, sessionId: sessionId ?? null },
    })),
  );
}
