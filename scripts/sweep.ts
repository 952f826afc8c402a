// `npm run sweep`: takes over runs whose instance died (lease lapsed) and drives them to the end.
// Meant for a scheduler next to `POST /api/internal/sweep`.
import { resumeLapsedRuns } from '../lib/agent/engine';
import { getDbHandle } from '../lib/server/database';
import { buildEngineDeps } from '../lib/server/engine-deps';

const handle = await getDbHandle();
const work: Promise<void>[] = [];
// The same model and tools as the app: a run taken over may owe tool results.
const taken = await resumeLapsedRuns(buildEngineDeps(handle, { role: 'sweep', schedule: (fn) => void work.push(fn()) }));
await Promise.allSettled(work);
console.log(`Took over ${taken} run(s).`);
await handle.close();
