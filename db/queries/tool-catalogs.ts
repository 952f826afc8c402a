import { and, desc, eq, gt, inArray } from 'drizzle-orm';

import type { Db } from '../connection';
import { toolCatalogs } from '../schema';

export type ToolCatalogRow = typeof toolCatalogs.$inferSelect;

/** A fresh cached list for this server and caller: the caller's own first, then a public one. */
export async function findFreshCatalog(
  db: Db,
  serverId: string,
  serverUrl: string,
  userId: string,
  now = new Date(),
): Promise<ToolCatalogRow | null> {
  const rows = await db
    .select()
    .from(toolCatalogs)
    .where(
      and(
        eq(toolCatalogs.serverId, serverId),
        inArray(toolCatalogs.scope, [userId, '*']),
        eq(toolCatalogs.serverUrl, serverUrl),
        gt(toolCatalogs.expiresAt, now),
      ),
    );
  return rows.find((r) => r.scope === userId) ?? rows[0] ?? null;
}

/** The caller's (or the public) last listing at this URL, expired or not: what the servers page shows. */
export async function findLatestCatalog(db: Db, serverId: string, serverUrl: string, userId: string): Promise<ToolCatalogRow | null> {
  const rows = await db
    .select()
    .from(toolCatalogs)
    .where(and(eq(toolCatalogs.serverId, serverId), inArray(toolCatalogs.scope, [userId, '*']), eq(toolCatalogs.serverUrl, serverUrl)))
    .orderBy(desc(toolCatalogs.fetchedAt));
  return rows[0] ?? null;
}

export async function saveCatalog(
  db: Db,
  row: { serverId: string; scope: string; serverUrl: string; catalog: Record<string, unknown>; expiresAt: Date },
): Promise<void> {
  await db
    .insert(toolCatalogs)
    .values({ ...row, fetchedAt: new Date() })
    .onConflictDoUpdate({
      target: [toolCatalogs.serverId, toolCatalogs.scope],
      set: { serverUrl: row.serverUrl, catalog: row.catalog, expiresAt: row.expiresAt, fetchedAt: new Date() },
    });
}

/** Forgets a server's lists (refresh, list_changed, the server was edited or removed). */
export async function dropCatalogs(db: Db, serverId: string): Promise<void> {
  await db.delete(toolCatalogs).where(eq(toolCatalogs.serverId, serverId));
}
