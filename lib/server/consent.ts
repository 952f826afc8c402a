import type { ConsentDeps } from '@/lib/consent/tools-view';

import type { Runtime } from './runtime';

/** What the grant use-cases need of the process: the database, the app's tool host, and every tool a server lists. */
export function consentDeps(rt: Runtime): ConsentDeps {
  return { db: rt.handle.db, host: rt.tools.host, listAll: rt.tools.listAll };
}
