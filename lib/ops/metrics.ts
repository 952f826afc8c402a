import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

import type { DbHandle } from '@/db/connection';
import { poolUse } from '@/db/pool-use';
import type { EngineObserver } from '@/lib/agent/observe';
import type { StreamRegistry } from '@/lib/agent/sse-streams';

import { statementsSent } from './statement-count';

export interface AppMetrics {
  /** Handed to the engine (EngineDeps.observe): counts turns, tool calls and model steps. */
  observer: EngineObserver;
  /** The Prometheus text exposition of everything below. */
  text(): Promise<string>;
  contentType: string;
}

// Model calls take from a fraction of a second (a short answer) to minutes (a long one).
const MODEL_SECONDS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300];
const FIRST_DELTA_SECONDS = [0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30];

/**
 * The process's metrics on a registry of its own (never prom-client's global one, which any
 * library may fill): the engine's counters and histograms through its observer, gauges read at
 * scrape time (open event streams, the database pool), and prom-client's process metrics
 * (memory, CPU, event loop, GC).
 */
export function createAppMetrics(sources: { streams: StreamRegistry; handle: Pick<DbHandle, 'kind' | 'db'> }): AppMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  const turnsStarted = new Counter({ name: 'switchboard_turns_started_total', help: 'Turns started.', registers: [registry] });
  const turnsEnded = new Counter({
    name: 'switchboard_turns_ended_total',
    help: 'Turns ended, by status (completed, failed, cancelled).',
    labelNames: ['status'],
    registers: [registry],
  });
  const toolCallsEnded = new Counter({
    name: 'switchboard_tool_calls_ended_total',
    help: 'Tool calls that reached an end state, by outcome (succeeded, errored, timed_out, cancelled, unknown, denied, rejected).',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const modelSeconds = new Histogram({
    name: 'switchboard_model_step_seconds',
    help: 'Model calls, from the request to the end of the streamed answer, by outcome (message, aborted, error).',
    labelNames: ['outcome'],
    buckets: MODEL_SECONDS,
    registers: [registry],
  });
  const firstDeltaSeconds = new Histogram({
    name: 'switchboard_model_first_delta_seconds',
    help: 'Model calls, from the request to the first streamed content delta.',
    buckets: FIRST_DELTA_SECONDS,
    registers: [registry],
  });
  new Gauge({
    name: 'switchboard_sse_streams_active',
    help: 'Event streams open on this instance.',
    registers: [registry],
    collect() {
      this.set(sources.streams.total());
    },
  });
  new Gauge({
    name: 'switchboard_db_pool_connections',
    help: 'Database connections of this instance, by state (in_use, idle); PGlite is one connection, always in use.',
    labelNames: ['state', 'database'],
    registers: [registry],
    collect() {
      const use = poolUse(sources.handle);
      this.set({ state: 'in_use', database: sources.handle.kind }, use.inUse);
      this.set({ state: 'idle', database: sources.handle.kind }, use.idle);
    },
  });
  new Counter({
    name: 'switchboard_db_statements_total',
    help: 'Statements this instance sent to its database (queries and NOTIFY; BEGIN and COMMIT not counted).',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(statementsSent());
    },
  });
  new Gauge({
    name: 'switchboard_db_pool_waiting',
    help: 'Queries waiting for a database connection on this instance (always 0 on PGlite).',
    labelNames: ['database'],
    registers: [registry],
    collect() {
      this.set({ database: sources.handle.kind }, poolUse(sources.handle).waiting);
    },
  });

  return {
    observer: {
      turnStarted: () => turnsStarted.inc(),
      turnEnded: (status) => turnsEnded.inc({ status }),
      toolCallEnded: (outcome) => toolCallsEnded.inc({ outcome }),
      modelStep: (ms, firstDeltaMs, outcome) => {
        modelSeconds.observe({ outcome }, ms / 1000);
        if (firstDeltaMs !== null) firstDeltaSeconds.observe(firstDeltaMs / 1000);
      },
    },
    text: () => registry.metrics(),
    contentType: registry.contentType,
  };
}
