import type Anthropic from '@anthropic-ai/sdk';

import type { Db } from '@/db/connection';
import type { AuditKeyring } from '@/lib/audit/key';
import { CONFIG_DEFAULTS } from '@/lib/config';
import type { ListedLimits } from '@/lib/model/limits';

import type { FileSource } from './context/file-blocks';
import type { ContextSettings } from './context/settings';
import type { EventSink } from './events';
import type { ModelRetrySettings } from './model-retry';
import type { EngineObserver } from './observe';
import type { ToolSearchSettings } from './tool-budget';
import type { ToolHost } from './tool-host';

/**
 * What the engine needs from the outside world. No Next.js here: the app passes `after()` as
 * `schedule`, tests and benchmarks pass a plain function.
 */
export interface EngineDeps {
  db: Db;
  events: EventSink;
  model: {
    client: Anthropic;
    model: string;
    maxTokens?: number;
    /** What the models endpoint listed for this model (its window, its largest max_tokens); else the known table (lib/model/limits.ts). */
    limits?: ListedLimits | null;
    /**
     * What the models endpoint listed for any model (a synchronous look-up into the listing's
     * cache, lib/model/models.ts): a run's own model gets its `limits` from here (./run-model.ts).
     */
    listedLimits?: (model: string) => ListedLimits | null;
  };
  /** Runs work after the response is sent, never tied to the request's abort signal. */
  schedule: (work: () => Promise<void>) => void;
  /** This process: the lease owner it writes as. */
  instanceId: string;
  /** How long a lease lasts without renewal (default 15 s). */
  leaseMs?: number;
  /** How often the lease is renewed and Stop is checked (default 1 s). */
  heartbeatMs?: number;
  maxSteps?: number;
  systemPrompt?: string;
  /** Ask the model for a short title for each new conversation (one small extra call). Off unless set. */
  titles?: boolean;
  /** MCP tools; without it no tool is offered and a named tool gets an error result. */
  tools?: ToolHost;
  /** Past this budget of enabled tools the model searches them instead (default: DEFAULT_TOOL_SEARCH). */
  toolSearch?: ToolSearchSettings;
  /** The audit log's key (never in the database): every finished call is logged under it (./audit-calls.ts). */
  auditKeys: () => Promise<AuditKeyring>;
  /** Told of turns, tool calls and model steps as they end (the app's metrics); nothing when unset. */
  observe?: EngineObserver;
  /** How close to the model's window the history may come before room is made (default DEFAULT_CONTEXT_SETTINGS, ./context/settings.ts). */
  context?: ContextSettings;
  /** Retries of a model call that failed before its first byte (default DEFAULT_MODEL_RETRY, ./model-retry.ts). */
  modelRetry?: ModelRetrySettings;
  /** The person's uploaded files a message refers to, read when a request is built (./context/file-blocks.ts). */
  files?: FileSource;
}

// The defaults of RUN_LEASE_MS and RUN_HEARTBEAT_MS (lib/config), for an engine given none.
export const DEFAULT_LEASE_MS = CONFIG_DEFAULTS.RUN_LEASE_MS;
export const DEFAULT_HEARTBEAT_MS = CONFIG_DEFAULTS.RUN_HEARTBEAT_MS;
export const DEFAULT_MAX_TOKENS = 4096;

export const DEFAULT_SYSTEM_PROMPT =
  'You are Switchboard, an assistant in a web chat. Answer clearly and concisely; use Markdown where it helps.';

export function leaseUntil(deps: EngineDeps, now = Date.now()): Date {
  return new Date(now + (deps.leaseMs ?? DEFAULT_LEASE_MS));
}

/**
 * A `schedule` for scripts, benchmarks and tests: work starts at once and is tracked, so the
 * caller can wait until everything scheduled (and what that scheduled in turn) has settled.
 */
export function trackedSchedule(onError: (err: unknown) => void = () => {}): { schedule: EngineDeps['schedule']; idle(): Promise<void> } {
  const pending = new Set<Promise<void>>();
  return {
    schedule(work) {
      const p = work().catch(onError);
      pending.add(p);
      void p.finally(() => pending.delete(p));
    },
    async idle() {
      while (pending.size) await Promise.all([...pending]);
    },
  };
}
