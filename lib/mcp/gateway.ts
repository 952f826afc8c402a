import { InsufficientScopeError, type Client, type StandardSchemaV1 } from '@modelcontextprotocol/client';

import { storedInputRequests } from '@/db/stored-json';

import { formatBytes, type ResponseTooLarge } from './bounded-fetch';
import { createCallConnections } from './call-connections';
import { buildServerCatalog, MAX_TOOLS_PER_SERVER, type RawTool } from './catalog';
import {
  closeQuietly,
  connect,
  isSessionRefused,
  onRequestStreamEnd,
  transportOf,
  type ConnectDeps,
  type ConnectOptions,
  type KeptSession,
} from './connection';
import { createDiscoveryMemo, type DiscoveryMemo } from './discovery-memo';
import { refusedElicitationLink } from './elicitation-link';
import {
  classifyFailure,
  describeFailure,
  findInChain,
  isTimeout,
  quote,
  redactForServer,
  signInRequiredIn,
  type FailureKind,
  type NeedsSignIn,
} from './failures';
import { cancelTask, canRunAsTask, followTask, resultOrTaskSchema, taskIn, taskRequest } from './follow-task';
import type { LegacySessionStore } from './legacy-sessions';
import type {
  CallerIdentity,
  CallOptions,
  CallOutcome,
  CancelTaskOptions,
  CancelTaskOutcome,
  FollowTaskOptions,
  McpCallResult,
  McpGateway,
  McpServerConfig,
  ServerCatalog,
} from './types';
import { readViewHashes } from './view-hashes';

/**
 * The engine's door to MCP servers. Each listing and each call opens its own connection and
 * closes it (a call's starts from what the last connection discovered: lib/mcp/discovery-memo.ts).
 * A call in a conversation to a 2025-era Streamable HTTP server goes on with the session the
 * conversation's last call to it left open, kept in `sessions` (lib/mcp/legacy-sessions.ts), so a
 * server that keeps state per session keeps it (./call-connections.ts picks a call's connection);
 * a listing always has a session of its own.
 * Nothing here throws: every failure becomes data (`error` on a catalog, a `failed` / `timeout` /
 * `cancelled` outcome) with a sentence naming the server. Retrying is the engine's decision, not
 * this module's — except a call the server refused unprocessed because it no longer knew the
 * resumed session (404, or 400 from many servers), which is sent once more on a new one.
 */

export interface GatewayDeps extends ConnectDeps {
  /** Tools taken per server; the rest are cut and the catalog says so. */
  maxToolsPerServer?: number;
  /** A connection received `notifications/tools/list_changed`: what was cached of the server's list is stale. */
  onToolsListChanged?: (server: McpServerConfig, caller: CallerIdentity) => void;
  /** What servers answered to `server/discover` (default: one memo per gateway). */
  discoveries?: DiscoveryMemo;
  /** Sessions of 2025-era servers kept between calls; without it each call opens and ends its own. */
  sessions?: LegacySessionStore;
}

/** A catalog plus what the listing said about caching it (the engine stores its own expiry). */
export interface ListedCatalog extends ServerCatalog {
  era?: 'modern' | 'legacy';
  ttlMs?: number;
  cacheScope?: 'public' | 'private';
  /** The protocol revision the connection negotiated, e.g. `2026-07-28`. */
  protocolVersion?: string;
  transport?: 'streamable_http' | 'sse';
  /** With `error`: what kind of failure it was (the server's status on the servers page). */
  failure?: FailureKind;
}

export interface SwitchboardGateway extends McpGateway {
  listTools(server: McpServerConfig, caller: CallerIdentity, opts?: { refresh?: boolean }): Promise<ListedCatalog>;
  followTask(server: McpServerConfig, taskId: string, opts: FollowTaskOptions): Promise<CallOutcome>;
  cancelTask(server: McpServerConfig, taskId: string, opts: CancelTaskOptions): Promise<CancelTaskOutcome>;
}

const MAX_PAGES = 50;
/** A stream that ended without an answer may still deliver it a moment later; then it failed. */
const STREAM_END_GRACE_MS = 100;

interface ToolsPage {
  tools: unknown[];
  nextCursor?: unknown;
  ttlMs?: unknown;
  cacheScope?: unknown;
}

/** Accepts any page with a `tools` array: one malformed tool must not hide the other 199. */
const toolsPageSchema: StandardSchemaV1<unknown, ToolsPage> = {
  '~standard': {
    version: 1,
    vendor: 'switchboard',
    validate: (value: unknown) =>
      value !== null && typeof value === 'object' && Array.isArray((value as { tools?: unknown }).tools)
        ? { value: value as ToolsPage }
        : { issues: [{ message: 'the tools/list result has no "tools" array' }] },
  },
};

export function createMcpGateway(deps: GatewayDeps = {}): SwitchboardGateway {
  const maxTools = deps.maxToolsPerServer ?? MAX_TOOLS_PER_SERVER;
  const discoveries = deps.discoveries ?? createDiscoveryMemo();

  /**
   * A failure only the person can fix by signing in (again), as data; undefined for any other
   * failure. A 403 insufficient_scope is a step-up: the wider scopes are remembered for the next
   * sign-in.
   */
  async function signInNeeded(server: McpServerConfig, caller: CallerIdentity, error: unknown): Promise<NeedsSignIn | undefined> {
    const needs = signInRequiredIn(error);
    if (needs) return needs;
    const insufficient = findInChain(error, InsufficientScopeError);
    if (!insufficient || !deps.oauth) return undefined;
    const { scopes } = await deps.oauth
      .stepUp(server, caller, insufficient.requiredScope)
      .catch(() => ({ scopes: insufficient.requiredScope }));
    return {
      kind: 'needs_sign_in',
      serverId: server.id,
      serverName: server.displayName,
      ...(scopes && { scopes: scopes.split(' ') }),
      reason: 'insufficient_scope',
    };
  }

  async function listTools(server: McpServerConfig, caller: CallerIdentity): Promise<ListedCatalog> {
    let client: Client | undefined;
    const size = watchSize();
    try {
      // A listing always asks afresh (the servers page shows what it finds), and seeds the calls' memo.
      client = await connect(server, caller, { ...deps, timeoutMs: server.timeoutMs, ...size.connectOptions });
      discoveries.remember(server, caller, client);
      watchListChanged(client, server, caller);
      const era = client.getProtocolEra();
      const reached = { era, protocolVersion: client.getNegotiatedProtocolVersion(), transport: transportOf(client) };
      if (!client.getServerCapabilities()?.tools) return { ...buildServerCatalog(server, []), ...reached };
      const raw: RawTool[] = [];
      const seenCursors = new Set<string>();
      let cursor: string | undefined;
      let ttlMs: number | undefined;
      let cacheScope: 'public' | 'private' | undefined;
      let truncated = false;
      for (let page = 0; ; page++) {
        const result = await client.request({ method: 'tools/list', params: cursor === undefined ? {} : { cursor } }, toolsPageSchema, {
          timeout: server.timeoutMs,
          signal: size.connectOptions.signal,
        });
        if (page === 0) {
          if (typeof result.ttlMs === 'number') ttlMs = result.ttlMs;
          if (result.cacheScope === 'public' || result.cacheScope === 'private') cacheScope = result.cacheScope;
        }
        raw.push(...result.tools.filter((t): t is RawTool => t !== null && typeof t === 'object'));
        const next = typeof result.nextCursor === 'string' ? result.nextCursor : undefined;
        if (raw.length > maxTools || (next !== undefined && page + 1 >= MAX_PAGES)) {
          truncated = raw.length > maxTools || next !== undefined;
          break;
        }
        if (next === undefined || seenCursors.has(next)) break; // a repeated cursor would loop forever
        seenCursors.add(next);
        cursor = next;
      }
      const viewHashes = await readViewHashes(client, server, raw, { timeout: server.timeoutMs, signal: size.connectOptions.signal });
      const catalog = buildServerCatalog(server, raw, { truncated, maxTools, modern: era === 'modern', viewHashes });
      return { ...catalog, ...reached, ...(ttlMs !== undefined && { ttlMs }), ...(cacheScope && { cacheScope }) };
    } catch (error) {
      discoveries.forget(server, caller);
      const needsSignIn = await signInNeeded(server, caller, error);
      if (needsSignIn) {
        const message = `${server.displayName} needs you to sign in before its tools can be listed.`;
        return { server, tools: [], skipped: [], truncated: false, error: message, failure: 'needs_sign_in', needsSignIn };
      }
      const message = size.tooLarge
        ? `${server.displayName}'s tool list was too large: ${tooLargeReason(size.tooLarge)}`
        : isTimeout(error)
          ? `${server.displayName} did not answer within ${seconds(server.timeoutMs)} when asked to list its tools.`
          : redactForServer(server, describeFailure(server.displayName, server.url, 'list its tools', error));
      const failure: FailureKind = size.tooLarge ? 'protocol_error' : isTimeout(error) ? 'unreachable' : classifyFailure(error);
      return { server, tools: [], skipped: [], truncated: false, error: message, failure };
    } finally {
      if (client) await closeQuietly(client);
    }
  }

  const connections = createCallConnections(deps, discoveries, deps.sessions);

  async function callTool(server: McpServerConfig, tool: string, args: Record<string, unknown>, opts: CallOptions): Promise<CallOutcome> {
    const action = `run "${tool}"`;
    const cancelled = (): CallOutcome => ({ kind: 'cancelled', message: `The call to "${tool}" on ${server.displayName} was cancelled.` });
    if (opts.signal.aborted) return cancelled();

    // The overall cap covers connecting, too, and silent stretches between progress messages.
    const overall = new AbortController();
    const capTimer = opts.maxTotalTimeoutMs ? setTimeout(() => overall.abort(), opts.maxTotalTimeoutMs) : undefined;
    const size = watchSize();
    const signal = AbortSignal.any([opts.signal, overall.signal, size.connectOptions.signal]);
    const options: ConnectOptions = { ...deps, timeoutMs: opts.timeoutMs, ...size.connectOptions, signal };
    let client: Client | undefined;
    let held: KeptSession | undefined;
    let resumed: boolean | undefined;
    let keep = false;
    try {
      ({ client, held, resumed } = await connections.open(server, opts.caller, options));
      watchListChanged(client, server, opts.caller);
      let result: Record<string, unknown>;
      try {
        result = await runCall(client, tool, args, opts, signal);
      } catch (error) {
        if (!held || !resumed || !isSessionRefused(error) || signal.aborted) throw error;
        // The server no longer knows the session (expired, restarted) and did not process the
        // call: the spec has the client open a new session, and the call is sent once more.
        const gone = held;
        await closeQuietly(client, { keepSession: true });
        client = held = undefined;
        ({ client, held } = await connections.reopen(server, opts.caller, options, gone));
        watchListChanged(client, server, opts.caller);
        result = await runCall(client, tool, args, opts, signal);
      }
      keep = held !== undefined;
      if (held) await connections.succeeded(server, opts.caller, held);

      const task = taskIn(result);
      if (task) return { kind: 'task', task };

      if (result.resultType === 'input_required') {
        const asked = storedInputRequests.safeParse(result.inputRequests ?? {});
        if (!asked.success) {
          return {
            kind: 'failed',
            message: `${server.displayName} asked for input in a form Switchboard cannot read ("${tool}" did not finish).`,
          };
        }
        // A link the person could not safely be offered ends the call here, in words, rather than as a card.
        const refused = refusedElicitationLink(asked.data);
        if (refused) {
          const message = `${server.displayName} asked the person to open a link Switchboard does not open (${refused});`;
          return { kind: 'failed', message: `${message} "${tool}" did not finish.` };
        }
        return {
          kind: 'input_required',
          inputRequests: asked.data,
          ...(typeof result.requestState === 'string' && { requestState: result.requestState }),
        };
      }
      return { kind: 'result', result: result as McpCallResult };
    } catch (error) {
      // Whatever went wrong, the next call asks the server what it speaks again, on a new session.
      discoveries.forget(server, opts.caller);
      if (held) await connections.failed(server, opts.caller, held);
      if (opts.signal.aborted) return cancelled();
      // Not a failure: the call waits for the person to sign in, then runs.
      const signIn = await signInNeeded(server, opts.caller, error);
      if (signIn) return signIn;
      if (size.tooLarge) {
        const why = tooLargeReason(size.tooLarge);
        return {
          kind: 'failed',
          message: `${server.displayName}'s answer to "${tool}" was too large: ${why} The tool may or may not have run.`,
        };
      }
      const sdkTotal = isTimeout(error) && (error as { data?: { maxTotalTimeout?: unknown } }).data?.maxTotalTimeout !== undefined;
      if (overall.signal.aborted || sdkTotal) {
        return {
          kind: 'timeout',
          message: `"${tool}" on ${server.displayName} ran past the overall limit of ${seconds(opts.maxTotalTimeoutMs!)}.`,
        };
      }
      if (isTimeout(error)) {
        const message = client
          ? `${server.displayName} did not answer "${tool}" and sent no progress for ${seconds(opts.timeoutMs)}.`
          : `${server.displayName} did not accept the connection within ${seconds(opts.timeoutMs)}.`;
        return { kind: 'timeout', message };
      }
      if (error instanceof StreamEnded) {
        const detail = error.transportError instanceof Error ? ` (${quote(error.transportError.message)})` : '';
        return {
          kind: 'failed',
          message: redactForServer(
            server,
            `${server.displayName} closed the connection before answering "${tool}"${detail}. The tool may or may not have run.`,
          ),
        };
      }
      return { kind: 'failed', message: redactForServer(server, describeFailure(server.displayName, server.url, action, error)) };
    } finally {
      clearTimeout(capTimer);
      // A kept session outlives this connection; any other is ended with it.
      if (client) await closeQuietly(client, { keepSession: keep });
    }
  }

  /** Sends one `tools/call` on a connection and waits for its answer (or for its stream to end without one). */
  async function runCall(
    client: Client,
    tool: string,
    args: Record<string, unknown>,
    opts: CallOptions,
    signal: AbortSignal,
  ): Promise<Record<string, unknown>> {
    let lastTransportError: unknown;
    client.onerror = (error) => (lastTransportError = error);
    const params = {
      name: tool,
      arguments: args,
      // The typed params reject these two keys; the wire needs them verbatim.
      ...(opts.resume && { inputResponses: opts.resume.inputResponses }),
      ...(opts.resume?.requestState !== undefined && { requestState: opts.resume.requestState }),
    } as { name: string; arguments: Record<string, unknown> };

    // A per-request SSE stream that ends without the answer (server crashed, proxy cut it)
    // would otherwise leave the call waiting for its full timeout.
    let settled = false;
    let streamTimer: ReturnType<typeof setTimeout> | undefined;
    let onStreamEnd = () => {};
    const streamEnded = new Promise<never>((_, reject) => {
      onStreamEnd = () => {
        if (!settled) streamTimer = setTimeout(() => reject(new StreamEnded(lastTransportError)), STREAM_END_GRACE_MS);
      };
    });
    onRequestStreamEnd(client, () => onStreamEnd());
    const requestOptions = {
      timeout: opts.timeoutMs,
      resetTimeoutOnProgress: true,
      ...(opts.maxTotalTimeoutMs && { maxTotalTimeout: opts.maxTotalTimeoutMs }),
      signal,
      allowInputRequired: client.getProtocolEra() === 'modern',
      // Lets the SDK mirror `x-mcp-header` arguments into `Mcp-Param-*` headers (2026-07-28)
      // without a `tools/list` on this short-lived connection.
      ...(opts.inputSchema && { toolDefinition: { name: tool, inputSchema: opts.inputSchema as { type: 'object' } } }),
      onprogress: (p: { progress: number; total?: number; message?: string }) =>
        opts.onProgress?.({ progress: p.progress, total: p.total, message: p.message }),
    };
    // A tool that may run as a task is asked as one where the connection can (./follow-task.ts).
    const call = canRunAsTask(client, opts.taskSupport)
      ? client.request({ method: 'tools/call', params: { ...params, ...taskRequest } }, resultOrTaskSchema, requestOptions)
      : client.callTool(params, requestOptions);
    // Whichever loses the race must not surface as an unhandled rejection.
    call.catch(() => {});
    streamEnded.catch(() => {});
    try {
      return (await Promise.race([call, streamEnded])) as Record<string, unknown>;
    } finally {
      settled = true;
      clearTimeout(streamTimer);
    }
  }

  /** Any connection may hear that the server's tools changed (e.g. mid-call, on the response stream). */
  function watchListChanged(client: Client, server: McpServerConfig, caller: CallerIdentity): void {
    const notify = deps.onToolsListChanged;
    if (notify) client.setNotificationHandler('notifications/tools/list_changed', () => notify(server, caller));
  }

  return {
    listTools,
    callTool,
    followTask: (server, taskId, opts) => followTask(connections, deps, server, taskId, opts),
    cancelTask: (server, taskId, opts) => cancelTask(connections, deps, server, taskId, opts),
  };
}

class StreamEnded extends Error {
  constructor(readonly transportError: unknown) {
    super('the response stream ended without an answer');
  }
}

/**
 * Notices a response over the size bound and aborts what is waiting for it at once: the SDK
 * reports a broken body in its own words, or only as an ended stream, or not at all.
 */
function watchSize() {
  const oversized = new AbortController();
  const watch = {
    tooLarge: undefined as ResponseTooLarge | undefined,
    connectOptions: {
      signal: oversized.signal,
      onResponseTooLarge: (error: ResponseTooLarge) => {
        watch.tooLarge ??= error;
        oversized.abort(error);
      },
    },
  };
  return watch;
}

function tooLargeReason(error: ResponseTooLarge): string {
  return `it went over the limit of ${formatBytes(error.limitBytes)} for one response, so Switchboard stopped reading it.`;
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}
