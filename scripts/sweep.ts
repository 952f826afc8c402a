// `npm run sweep`: takes over runs whose instance died (lease lapsed) and drives them to the end,
// prunes audit entries past AUDIT_RETENTION_DAYS, deletes share links 30 days after they
// expired, ends MCP sessions idle past their timeout and deletes files uploaded for a draft more
// than a day ago and never sent. Meant for a scheduler next to
// `POST /api/internal/sweep`.
import { getAuditKeyring } from '../lib/audit/key';
import { sweep } from '../lib/ops/sweep';
import { getDbHandle } from '../lib/server/database';
import { buildEngineDeps } from '../lib/server/engine-deps';
import { eventBusFrom } from '../lib/server/event-bus';
import { EXPIRED_SHARE_KEPT_DAYS } from '../lib/share/prune';

const handle = await getDbHandle();
const work: Promise<void>[] = [];
// The same model and tools as the app: a run taken over may owe tool results.
// The app's bus (REDIS_URL or the database's): what a run taken over says reaches the pages following it.
const chosen = eventBusFrom(handle);
const engine = buildEngineDeps(handle, { role: 'sweep', schedule: (fn) => void work.push(fn()), bus: chosen.bus });
const done = await sweep(engine, handle.db, await getAuditKeyring());
await Promise.allSettled(work);
console.log(`Took over ${done.resumed} run(s).`);
console.log(`Pruned ${done.audit.entries} audit entries past retention (${done.audit.users} user(s)).`);
if (done.audit.broken.length) console.error(`Not pruned, chain broken (run npm run audit:verify): ${done.audit.broken.join(', ')}`);
console.log(`Deleted ${done.expiredShareLinks} share link(s) expired more than ${EXPIRED_SHARE_KEPT_DAYS} days ago.`);
console.log(`Ended ${done.idleSessions.forgotten} idle MCP session(s) (${done.idleSessions.ended} confirmed by their server).`);
console.log(
  `Deleted ${done.files.draftFiles} unsent draft file(s) older than a day and ${done.files.orphanBlobs} stored byte blob(s) no file held.`,
);
await chosen.close();
await handle.close();
