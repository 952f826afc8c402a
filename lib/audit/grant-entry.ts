import type { Db } from '@/db/connection';
import { conversationTitles } from '@/db/queries/audit';
import type { StoredAuditGrant } from '@/db/stored-json';

import { appendAudit } from './append';
import type { AuditKeyring } from './key';

/** One change to a grant (or to a default-on tool's switch), as the grant use-cases report it. */
export type GrantChange = Omit<StoredAuditGrant, 'v' | 'kind' | 'settings' | 'sessionId' | 'conversation'> & {
  userId: string;
  /** The conversation's title is copied into the entry. */
  conversationId: string | null;
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
  if (!changes.length) return;
  const titles = await conversationTitles(db, [...new Set(changes.flatMap((c) => (c.conversationId ? [c.conversationId] : [])))]);
  await appendAudit(
    db,
    keys,
    changes.map(({ userId, settings, sessionId, conversationId, ...c }) => ({
      userId,
      content: {
        v: 1,
        kind: 'grant',
        ...c,
        conversation: conversationId ? { id: conversationId, title: titles.get(conversationId) ?? '(deleted conversation)' } : null,
        settings: settings ?? null,
        sessionId: sessionId ?? null,
      },
    })),
  );
}
