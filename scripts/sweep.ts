// `npm run sweep`: takes over runs whose instance died (lease lapsed) and drives them to the end,
// and prunes audit entries past AUDIT_RETENTION_DAYS. Meant for a scheduler next to
// `POST /api/internal/sweep`.
import { resumeLapsedRuns } from '../lib/agent/engine';
import { getAuditKeyring } from '../lib/audit/key';
import { pruneAudit } from '../lib/audit/retention';
import { getDbHandle } from '../lib/server/database';
import { buildEngineDeps } from '../lib/server/engine-deps';

const handle = await getDbHandle();
const work: Promise<void>[] = [];
// The same model and tools as the app: a run taken over may owe tool results.
const taken = await resumeLapsedRuns(buildEngineDeps(handle, { role: 'sweep', schedule: (fn) => void work.push(fn()) }));
await Promise.allSettled(work);
console.log(`Took over ${taken} run(s).`);
const pruned = await pruneAudit(handle.db, await getAuditKeyring());
console.log(`Pruned ${pruned.entries} audit entries past retention (${pruned.users} user(s)).`);
if (pruned.broken.length) console.error(`Not pruned, chain broken (run npm run audit:verify): ${pruned.broken.join(', ')}`);
await handle.close();
