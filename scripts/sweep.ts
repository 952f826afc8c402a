// `npm run sweep`: takes over runs whose instance died (lease lapsed) and drives them to the end.
// Meant for a scheduler next to `POST /api/internal/sweep`.
import { randomUUID } from 'node:crypto';

import { getDbHandle } from '../db/index';
import { createEventBus } from '../lib/agent/bus';
import { resumeLapsedRuns } from '../lib/agent/engine';
import { createDefaultToolHost } from '../lib/mcp/default-host';
import { createModelClient, getModelConfig } from '../lib/model/client';

const handle = await getDbHandle();
const work: Promise<void>[] = [];
const taken = await resumeLapsedRuns({
  db: handle.db,
  events: createEventBus(handle),
  model: { client: createModelClient(), model: getModelConfig().model },
  schedule: (fn) => void work.push(fn()),
  // The same tools as the app: a run taken over may owe tool results.
  tools: createDefaultToolHost(handle.db),
  instanceId: `sweep-${process.pid}-${randomUUID().slice(0, 8)}`,
});
await Promise.allSettled(work);
console.log(`Took over ${taken} run(s).`);
await handle.close();
