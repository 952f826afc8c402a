/**
 * The shapes shared by the MCP layer, the consent layer and the engine. Ids, not display names,
 * identify servers everywhere (scopes, name maps, audit).
 */

import type { StoredInputRequests } from '@/db/stored-json';
import type { TaskStatus, Trust } from '@/db/vocabulary';

import type { NeedsSignIn } from './failures';

export type { Trust };

export interface McpServerConfig {
  /** Stable id: a UUID for user-added servers, `builtin-<namespace>` for first-party ones. */
  id: string;
  /** Prefix of model-facing tool names: `[a-z0-9-]` plus single `_`. */
  namespace: string;
  displayName: string;
  /** `https://…` for remote servers; `builtin://<namespace>` for in-process first-party servers. */
  url: string;
  /** Whether its annotations are believed (read-only, idempotent: lib/consent/policy.ts). */
  trust: Trust;
  /**
   * Whether what it returns is believed: unless it is, its results, errors, questions, progress,
   * prompts and resources taint the conversation (lib/agent/taint.ts). Absent: not believed.
   */
  trustContent?: boolean;
  /** False: its tools' interactive views (MCP Apps) are not shown nor read; absent: shown. */
  showViews?: boolean;
  /** Its tools read the person's own data (the notes server): in a tainted conversation they ask. */
  privateData?: boolean;
  /** Per-call timeout; progress notifications reset it. */
  timeoutMs: number;
  headers?: Record<string, string>;
  /**
   * Reached with its configured headers only, never with the person's OAuth sign-in (an
   * organization's shared credential: the person's own token must not ride along).
   */
  noOAuth?: boolean;
  builtin?: boolean;
  /**
   * User-added servers: tool name → the fingerprint the person approved (`reviewState` in
   * catalog.ts). A tool whose current fingerprint is not here is not offered to the model.
   * Absent for built-in servers.
   */
  reviewedTools?: ReviewedTools;
}

/**
 * What the person approved of a server's tools: tool name → fingerprint. `beforeTitles` holds
 * approvals stored before the title was part of the fingerprint (reviewed_tools version 1).
 */
export interface ReviewedTools {
  tools: Record<string, string>;
  beforeTitles?: Record<string, string>;
}

export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** The interactive view a tool declares (MCP Apps: lib/mcp/app-views.ts). */
export interface ToolView {
  /** The `ui://` resource holding the view's HTML. */
  resourceUri: string;
  /** False for a tool marked `visibility: ["app"]`: its views may call it, the model is never offered it. */
  modelVisible: boolean;
  /**
   * False for a tool marked for the model only (`visibility: ["model"]`): its views may not call it.
   * Present only then, so the fingerprint of every other tool with a view stays what it was.
   */
  appCallable?: false;
  /**
   * `viewContentHash` of the view as read when the tool was listed (its HTML and declared domains):
   * in the fingerprint, so a changed view is reviewed again. Absent when it could not be read then.
   */
  contentHash?: string;
}

/** One usable tool of one server, as listed. */
export interface CatalogTool {
  serverId: string;
  namespace: string;
  serverName: string;
  trust: Trust;
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations: ToolAnnotations;
  /**
   * The hints exactly as the server declared them (boolean ones only); absent when the server
   * sent no annotations at all, which the servers page shows as "not annotated".
   */
  declaredAnnotations?: ToolAnnotations;
  /** SHA-256 over server URL + name + title + description + schemas + annotations (`toolFingerprint`). */
  fingerprint: string;
  /** Only for a tool with a top-level title: its fingerprint without the title, as releases before titles counted stored it. */
  untitledFingerprint?: string;
  /** Its interactive view (`_meta.ui`), when it declares one. */
  view?: ToolView;
  /** It may run as a task (MCP Tasks, `execution.taskSupport`); absent: it never does. */
  taskSupport?: 'optional' | 'required';
}

export interface SkippedTool {
  serverId: string;
  name: string;
  reason: string;
}

export interface ServerCatalog {
  server: McpServerConfig;
  tools: CatalogTool[];
  skipped: SkippedTool[];
  /** The server listed more than the per-server cap; the rest were left out. */
  truncated: boolean;
  /** Listing failed: the server's tools are not offered this step. */
  error?: string;
  /** Listing failed because the person must sign in first (the servers page offers Connect). */
  needsSignIn?: NeedsSignIn;
}

/** The caller of a tool: first-party servers take the user from here, never from arguments. */
export interface CallerIdentity {
  userId: string;
  conversationId?: string;
}

export interface ProgressUpdate {
  progress: number;
  total?: number;
  message?: string;
}

/** An MCP CallToolResult, as received (content blocks, structuredContent, isError). */
export interface McpCallResult {
  content?: Record<string, unknown>[];
  structuredContent?: unknown;
  isError?: boolean;
  [key: string]: unknown;
}

export type CallOutcome =
  | { kind: 'result'; result: McpCallResult }
  | { kind: 'input_required'; inputRequests: StoredInputRequests; requestState?: string }
  | NeedsSignIn
  | { kind: 'timeout'; message: string }
  /** `byServer`: the server ended the task itself (MCP Tasks), not the person pressing Stop. */
  | { kind: 'cancelled'; message: string; byServer?: true }
  | { kind: 'failed'; message: string }
  /** The server runs the call as a task (MCP Tasks): follow `task.taskId` to its result. */
  | { kind: 'task'; task: ServerTask };

/** A server-side task as the server last described it. */
export interface ServerTask {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  pollIntervalMs?: number;
}

export interface FollowTaskOptions {
  caller: CallerIdentity;
  /** Stops following; the outcome is then `cancelled`. */
  signal: AbortSignal;
  /**
   * Asked when `signal` aborts: true (the person pressed Stop) sends `tasks/cancel`; false (the
   * lease moved on) leaves the task running for whoever follows it next.
   */
  cancelOnAbort: () => boolean;
  /** Per request (`tasks/get`, `tasks/result`, `tasks/cancel`). */
  timeoutMs: number;
  /** Each time the task's status or message changes. */
  onStatus?: (task: ServerTask) => void;
}

export interface CancelTaskOptions {
  caller: CallerIdentity;
  /** Bounds the whole attempt (connecting and `tasks/cancel`). */
  timeoutMs: number;
}

/** Whether `tasks/cancel` reached the server (failures as data: the caller logs them). */
export type CancelTaskOutcome = { ok: true } | { ok: false; message: string };

export interface CallOptions {
  caller: CallerIdentity;
  signal: AbortSignal;
  timeoutMs: number;
  /** Overall cap even while progress keeps arriving. */
  maxTotalTimeoutMs?: number;
  onProgress?: (p: ProgressUpdate) => void;
  /** The tool's input schema as listed (its `x-mcp-header` properties become request headers). */
  inputSchema?: Record<string, unknown>;
  /** Resuming an elicitation: the person's answers and the server's exact state. */
  resume?: { inputResponses: Record<string, unknown>; requestState?: string };
  /** The tool may run as a task (its `execution.taskSupport`): asked as one where the server can. */
  taskSupport?: 'optional' | 'required';
}

/** What the engine uses to reach MCP servers. */
export interface McpGateway {
  listTools(server: McpServerConfig, caller: CallerIdentity, opts?: { refresh?: boolean }): Promise<ServerCatalog>;
  callTool(server: McpServerConfig, tool: string, args: Record<string, unknown>, opts: CallOptions): Promise<CallOutcome>;
  /** Follows a task the server started for a call until it ends, and returns the call's outcome (never `task`). */
  followTask?(server: McpServerConfig, taskId: string, opts: FollowTaskOptions): Promise<CallOutcome>;
  /** Asks the server to stop a task nobody follows any more (best effort, never throws). */
  cancelTask?(server: McpServerConfig, taskId: string, opts: CancelTaskOptions): Promise<CancelTaskOutcome>;
}
