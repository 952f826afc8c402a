import type { Db } from '@/db/connection';
import type { EngineDeps } from '@/lib/agent/deps';
import { resumeLapsedRuns } from '@/lib/agent/engine';
import type { AuditKeyring } from '@/lib/audit/key';
import { pruneAudit } from '@/lib/audit/retention';
import { fileDeps, sweepFiles } from '@/lib/files/service';
import { pruneExpiredShareLinks } from '@/lib/share/prune';

export interface SweepReport {
  /** Runs whose instance died (lease lapsed), taken over and driven on. */
  resumed: number;
  audit: { users: number; entries: number; broken: string[] };
  /** Share links deleted a while after they expired (lib/share/prune.ts). */
  expiredShareLinks: number;
  /** MCP sessions kept for conversations and idle past their timeout: forgotten, and ended at the server where it could be told. */
  idleSessions: { forgotten: number; ended: number };
  /** Files uploaded for a draft more than a day ago and never sent, and bytes no file row holds (lib/files). */
  files: { draftFiles: number; orphanBlobs: number };
}

/**
 * One sweep, the same for `npm run sweep` and `POST /api/internal/sweep`: take over runs whose
 * instance died, prune audit entries past their retention, delete long-expired share links, end
 * idle MCP sessions (lib/mcp/legacy-sessions.ts), delete a day-old draft's files never sent.
 */
export async function sweep(engine: EngineDeps, db: Db, auditKeys: AuditKeyring, now: Date = new Date()): Promise<SweepReport> {
  const resumed = await resumeLapsedRuns(engine);
  const audit = await pruneAudit(db, auditKeys, { now });
  const expiredShareLinks = await pruneExpiredShareLinks(db, now);
  const idleSessions = (await engine.tools?.sessions?.endIdle(now)) ?? { forgotten: 0, ended: 0 };
  const files = await sweepFiles(fileDeps(db), now);
  return { resumed, audit, expiredShareLinks, idleSessions, files };
}
