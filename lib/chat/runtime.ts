import type { DbHandle } from '@/db/connection';
import type { EngineDeps } from '@/lib/agent/deps';
import type { ToolHost } from '@/lib/agent/tool-host';
import type { ConnectDeps } from '@/lib/mcp/connection';
import type { ModelConfig } from '@/lib/model/client';
import type { ModelCatalog } from '@/lib/model/models';

/**
 * What the conversation use-cases need of the process: named here, so lib/chat depends on the
 * engine and not on the wiring. lib/server's `Runtime` extends it; tests pass their own.
 */
export interface ChatRuntime {
  handle: DbHandle;
  engine: EngineDeps;
  modelConfig: ModelConfig;
  /** The models a conversation may choose. */
  models: ModelCatalog;
  /** The tool host the engine offers from, and how servers are reached for prompts and resources. */
  tools: { host: ToolHost; connectDeps: ConnectDeps };
}
