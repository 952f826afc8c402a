import { randomUUID } from 'node:crypto';

import type { DbHandle } from '@/db/connection';
import { createEventBus, type EventBus } from '@/lib/agent/bus';
import { contextSettingsFrom } from '@/lib/agent/context/settings';
import type { EngineDeps } from '@/lib/agent/deps';
import { toolSearchSettingsFrom } from '@/lib/agent/tool-budget';
import type { ToolHost } from '@/lib/agent/tool-host';
import { getAuditKeyring } from '@/lib/audit/key';
import { modelFileSource } from '@/lib/files/model-blocks';
import { fileDeps } from '@/lib/files/service';
import { createModelClient, getModelConfig } from '@/lib/model/client';
import { createModelCatalog, type ModelCatalog } from '@/lib/model/models';

import { instanceIdFrom, leaseTimingFrom } from './lease-timing';
import { createAppToolHost } from './tool-host';

export interface EngineWiring extends Partial<Omit<EngineDeps, 'db' | 'events' | 'tools' | 'instanceId'>> {
  /** Runs work after the response: `after()` in the app, a tracked promise in scripts and tests. */
  schedule: EngineDeps['schedule'];
  /** What this process is, for its lease owner id (`app`, `sweep`, `bench`…); a fixed id with `instanceId`. */
  role?: string;
  instanceId?: string;
  bus?: EventBus;
  /** The app's tools by default; `null` for an engine without tools. */
  tools?: ToolHost | null;
  /** The models listing (lib/model/models.ts); by default one over the engine's model client. */
  models?: ModelCatalog;
}

/**
 * The run engine's dependencies, assembled in one place for every entry point — the app, the
 * sweep, the benchmark and the tests — so they cannot drift apart: the model from the
 * environment (the demo model without a key), the app's tools, the tool-search budget from the
 * environment, events over the bus given (the app's comes from ./event-bus.ts) or Postgres
 * LISTEN/NOTIFY, the lease timing from the environment (./lease-timing.ts), a lease owner id
 * unique to this process, and the models the model client
 * may use, listed and cached (the picker's list; each run's model gets its limits from it).
 */
export function buildEngineDeps(handle: DbHandle, wiring: EngineWiring): EngineDeps & { bus: EventBus; models: ModelCatalog } {
  const { role = 'app', instanceId, bus = createEventBus(handle), tools, models: givenModels, ...rest } = wiring;
  const config = getModelConfig();
  const model = rest.model ?? { client: createModelClient(), model: config.model };
  const models =
    givenModels ??
    createModelCatalog({
      client: model.client,
      defaultModel: { id: model.model, label: model.model === config.model ? config.label : model.model },
    });
  return {
    // RUN_LEASE_MS and RUN_HEARTBEAT_MS, unless the caller gives its own.
    ...leaseTimingFrom(),
    ...rest,
    model: { listedLimits: models.listedLimits, ...model },
    models,
    toolSearch: rest.toolSearch ?? toolSearchSettingsFrom(),
    // CONTEXT_WINDOW_MARGIN: how close to the model's window a history may come (lib/agent/context).
    context: rest.context ?? contextSettingsFrom(),
    // AUDIT_KEY, or the key generated in the data folder (lib/audit/key.ts).
    auditKeys: rest.auditKeys ?? (() => getAuditKeyring()),
    // The person's uploaded files, read when a request is built (lib/files/model-blocks.ts).
    files: rest.files ?? modelFileSource(fileDeps(handle.db)),
    db: handle.db,
    events: bus,
    bus,
    tools: tools === null ? undefined : (tools ?? createAppToolHost(handle.db)),
    instanceId: instanceId ?? instanceIdFrom(role, process.pid, randomUUID().slice(0, 8)),
  };
}
