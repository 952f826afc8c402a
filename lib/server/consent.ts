import type { ConsentDeps } from '@/lib/consent/tools-view';

import type { Runtime } from './runtime';

/**
 * What the grant use-cases need of the process: the database, the app's tool host, every tool a
 * server lists, the audit key, and the engine's tool-search budget.
 */
export function consentDeps(rt: Runtime): ConsentDeps {
  return {
    db: rt.handle.db,
    host: rt.tools.host,
    listAll: rt.tools.listAll,
    auditKeys: rt.engine.auditKeys,
    toolSearch: rt.engine.toolSearch,
  };
}
