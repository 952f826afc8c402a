import {
  Client,
  ProtocolError,
  ProtocolErrorCode,
  SdkError,
  SdkHttpError,
  SSEClientTransport,
  StreamableHTTPClientTransport,
  type AuthProvider,
  type ElicitRequest,
  type ElicitResult,
  type FetchLike,
  type JSONRPCMessage,
  type JsonSchemaType,
  type JsonSchemaValidator,
  type PriorDiscovery,
  type Transport,
} from '@modelcontextprotocol/client';

import { boundedFetch, type ResponseTooLarge } from './bounded-fetch';
import { startRequestIdsAtRandom } from './request-ids';
import { checkToolSchema, validationProblem } from './schema-guard';
import type { CallerIdentity, McpServerConfig } from './types';

/**
 * One short-lived MCP client per use: the 2026-07-28 protocol is stateless, so nothing is kept
 * between calls. A 2025-era server's session may outlive the connection (`session`, `sessionOf`,
 * `endSession`: lib/mcp/legacy-sessions.ts keeps it); the connection itself never does.
 * Streamable HTTP first (with version negotiation, so legacy servers still
 * work), then the old HTTP+SSE transport for servers that only speak that. Built-in servers are
 * reached in-process through the same client code, by handing the transport a `fetch` that
 * calls their handler directly.
 */

export type { FetchLike };

export interface ConnectDeps {
  /** In-process fetch for a built-in server (`lib/mcp/builtin`), bound to the trusted caller. */
  inProcess?: (server: McpServerConfig, caller: CallerIdentity) => FetchLike | undefined;
  /**
   * The fetch for remote servers. This is the seam for the URL guard (SSRF checks at connect
   * time, redirects, size/time bounds): every MCP request to a remote server goes through it.
   * Without one, remote servers are refused: nothing falls back to the global fetch.
   */
  fetch?: FetchLike;
  /** Bytes read of any one response, in-process or remote (default `MAX_RESPONSE_BYTES`, 8 MB). */
  maxResponseBytes?: number;
  /**
   * Answers an `elicitation/create` a server sends while one of its calls is open (2025-era
   * servers ask mid-call; a 2026-07-28 server returns `input_required` instead, which the
   * engine keeps durably). Without it a 2025-era connection does not declare elicitation at
   * all (`withoutMidCallElicitation`): nobody could answer while the call waits in memory, and
   * answering "decline" would tell the model the person refused.
   */
  elicit?: (params: ElicitRequest['params'], signal: AbortSignal) => Promise<ElicitResult>;
  /** OAuth for remote servers (lib/mcp/oauth): what presents the user's token for a server. */
  oauth?: ConnectionOAuth;
}

export interface ConnectionOAuth {
  /** The auth provider for (user, server); undefined when the server does not use OAuth here. */
  authProvider(server: McpServerConfig, caller: CallerIdentity): AuthProvider | undefined;
  /** The server answered 403 insufficient_scope: remember the wider scopes; returns what to ask for. */
  stepUp(server: McpServerConfig, caller: CallerIdentity, requiredScope: string | undefined): Promise<{ scopes?: string }>;
}

export interface ConnectOptions extends ConnectDeps {
  /** Told when a response of this connection went over `maxResponseBytes` (its body then errors). */
  onResponseTooLarge?: (error: ResponseTooLarge) => void;
  signal?: AbortSignal;
  timeoutMs?: number;
  /** A cached era verdict (e.g. to resume an elicitation without a discovery round trip). */
  prior?: PriorDiscovery;
  /**
   * A kept 2025-era session of this server (lib/mcp/legacy-sessions.ts) to go on with: no
   * handshake, no request at all until the first call (a server that forgot it answers that
   * call 404: `isSessionRefused`). Remote Streamable HTTP servers only.
   */
  session?: KeptSession;
}

/** A 2025-era Streamable HTTP session: the server's `Mcp-Session-Id` and the version `initialize` negotiated. */
export interface KeptSession {
  sessionId: string;
  protocolVersion: string;
}

const CLIENT_INFO = { name: 'switchboard', version: '0.1.0' };

/** Output validation inside the SDK goes through our guard too (RE2, size caps). */
const guardedValidator = {
  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    const check = checkToolSchema(schema);
    return (input: unknown) => {
      const problem = validationProblem(check, input);
      return problem === null
        ? { valid: true, data: input as T, errorMessage: undefined }
        : { valid: false, data: undefined, errorMessage: problem };
    };
  },
};

export function newClient(deps: Pick<ConnectDeps, 'elicit'> = {}): Client {
  const client = new Client(CLIENT_INFO, {
    versionNegotiation: { mode: 'auto' },
    // Elicitation only; sampling and roots are deprecated and not offered.
    capabilities: { elicitation: { form: {}, url: {} } },
    // The person answers elicitations later, possibly on another instance: hand them back.
    inputRequired: { autoFulfill: false },
    jsonSchemaValidator: guardedValidator,
  });
  startRequestIdsAtRandom(client);
  const elicit = deps.elicit;
  client.setRequestHandler('elicitation/create', (request, ctx) => {
    if (elicit) return elicit(request.params, ctx.mcpReq.signal);
    // Only a server that ignores the declared capabilities gets here: an error, not a made-up answer.
    throw new ProtocolError(ProtocolErrorCode.InvalidRequest, NO_MID_CALL_ELICITATION);
  });
  return client;
}

const NO_MID_CALL_ELICITATION =
  'This client did not declare elicitation on this connection: Switchboard cannot ask the person while a call waits; nobody was asked.';

/**
 * The capabilities a connection declares are the client's (one set for both eras), and the era
 * is only known once the connection is made. `elicitation` must be declared for the 2026-07-28
 * era (without it `input_required` is refused), but on the 2025 era it means "I can ask the
 * person mid-call", which this host cannot do without `elicit`. So the 2025 `initialize` request
 * — sent only on that era — leaves it out. Servers then do not offer tools that need it
 * (server-everything), or fail the question with a reason the model can pass on.
 */
export function withoutMidCallElicitation<T extends Transport>(transport: T): T {
  const send = transport.send.bind(transport);
  transport.send = (message, options) => send(initializeWithoutElicitation(message), options);
  return transport;
}

/** A transport declares mid-call elicitation only when `elicit` can answer it. */
function declaring<T extends Transport>(transport: T, deps: Pick<ConnectDeps, 'elicit'>): T {
  return deps.elicit ? transport : withoutMidCallElicitation(transport);
}

function initializeWithoutElicitation(message: JSONRPCMessage): JSONRPCMessage {
  if (!('method' in message) || message.method !== 'initialize' || !message.params) return message;
  const params = message.params as { capabilities?: Record<string, unknown> };
  if (!params.capabilities || !('elicitation' in params.capabilities)) return message;
  const capabilities = { ...params.capabilities };
  delete capabilities.elicitation;
  return { ...message, params: { ...message.params, capabilities } };
}

/** A remote server was asked for in a process that has no guarded fetch for remote servers. */
export class RemoteServersDisabled extends Error {
  constructor(serverName: string) {
    super(`${serverName} is a remote server, and remote servers are not enabled here (no guarded connection is configured).`);
  }
}

export function isBuiltin(server: McpServerConfig): boolean {
  return server.builtin === true || server.url.startsWith('builtin://');
}

/** Adds the server's configured headers to every request (the SSE GET included). */
function withHeaders(base: FetchLike, headers: Record<string, string> | undefined): FetchLike {
  if (!headers || Object.keys(headers).length === 0) return base;
  return (url, init) => {
    const merged = new Headers(init?.headers);
    for (const [name, value] of Object.entries(headers)) if (!merged.has(name)) merged.set(name, value);
    return base(url, { ...init, headers: merged });
  };
}

/**
 * A 4xx (other than auth and rate limiting) on the first POST is how an HTTP+SSE-only server
 * answers: it has no POST handler at its URL. Anything else (5xx, network, garbage) is a real
 * failure and must not be masked by a second attempt.
 */
export function shouldTrySse(error: unknown): boolean {
  const status = error instanceof SdkHttpError ? error.status : (error as { data?: { status?: unknown } })?.data?.status;
  if (typeof status !== 'number') return false;
  return status >= 400 && status < 500 && ![401, 403, 407, 429].includes(status);
}

/** Every server's answers are bounded, the built-in in-process ones included. */
function boundedBy(opts: ConnectOptions): (base: FetchLike) => FetchLike {
  return (base) => boundedFetch(base, { maxBytes: opts.maxResponseBytes, onExceeded: opts.onResponseTooLarge });
}

/** How a remote server is reached: its URL, the guarded fetch with its configured headers, and its OAuth. */
function remoteAccess(server: McpServerConfig, caller: CallerIdentity, opts: ConnectOptions) {
  if (!opts.fetch) throw new RemoteServersDisabled(server.displayName);
  const fetchFn = boundedBy(opts)(withHeaders(opts.fetch, server.headers));
  // Configured header credentials (an API key in Authorization) win over OAuth.
  const hasAuthorization = Object.keys(server.headers ?? {}).some((h) => h.toLowerCase() === 'authorization');
  const authProvider = hasAuthorization || server.noOAuth ? undefined : opts.oauth?.authProvider(server, caller);
  return { url: new URL(server.url), fetchFn, authProvider };
}

export async function connect(server: McpServerConfig, caller: CallerIdentity, opts: ConnectOptions = {}): Promise<Client> {
  const requestOptions = { signal: opts.signal, timeout: opts.timeoutMs };
  const bounded = boundedBy(opts);

  if (isBuiltin(server)) {
    const local = opts.inProcess?.(server, caller);
    if (!local) throw new Error(`The built-in server ${server.displayName} is not available in this process.`);
    const client = newClient(opts);
    try {
      await client.connect(declaring(new StreamableHTTPClientTransport(new URL(server.url), { fetch: bounded(local) }), opts), {
        ...requestOptions,
        prior: opts.prior,
      });
      return client;
    } catch (error) {
      await closeQuietly(client);
      throw error;
    }
  }

  const { url, fetchFn, authProvider } = remoteAccess(server, caller, opts);
  if (opts.session) {
    // The SDK's connect skips the handshake for a transport that already has a session; the
    // version it negotiated then is not known to the client, so the transport is told it.
    const resumed = newClient(opts);
    const transport = new StreamableHTTPClientTransport(url, {
      fetch: fetchFn,
      authProvider,
      onInsufficientScope: 'throw',
      sessionId: opts.session.sessionId,
    });
    transport.setProtocolVersion(opts.session.protocolVersion);
    await resumed.connect(declaring(transport, opts), requestOptions);
    return resumed;
  }
  const client = newClient(opts);
  let firstError: unknown;
  try {
    await client.connect(
      declaring(new StreamableHTTPClientTransport(url, { fetch: fetchFn, authProvider, onInsufficientScope: 'throw' }), opts),
      {
        ...requestOptions,
        prior: opts.prior,
      },
    );
    return client;
  } catch (error) {
    await closeQuietly(client);
    if (!shouldTrySse(error) || opts.signal?.aborted) throw error;
    firstError = error;
  }

  const sseClient = newClient(opts);
  try {
    // HTTP+SSE predates 2026-07-28: skip the discovery probe.
    await sseClient.connect(declaring(new SSEClientTransport(url, { fetch: fetchFn, authProvider }), opts), {
      ...requestOptions,
      prior: { kind: 'legacy' },
    });
    return sseClient;
  } catch {
    await closeQuietly(sseClient);
    // Neither transport works: the first answer (say, a 404 for a wrong URL) says most.
    throw firstError;
  }
}

/** Which transport a connected client uses. */
export function transportOf(client: Client): 'streamable_http' | 'sse' {
  return client.transport instanceof SSEClientTransport ? 'sse' : 'streamable_http';
}

/**
 * Calls `onEnd` when the per-request response stream of any request sent from now on ends
 * without a deliberate abort. The SDK's transport reports this, but `Client` does not pass the
 * hook through, so it is added at the transport's `send`. (HTTP+SSE has no per-request stream;
 * a dropped SSE connection already fails pending requests.)
 */
export function onRequestStreamEnd(client: Client, onEnd: () => void): void {
  const transport = client.transport;
  if (!(transport instanceof StreamableHTTPClientTransport)) return;
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    const isRequest = !Array.isArray(message) && 'method' in message && 'id' in message;
    return send(message, isRequest && !options?.onRequestStreamEnd ? { ...options, onRequestStreamEnd: onEnd } : options);
  };
}

/** How long telling a server that a session is over may take: a courtesy, not worth waiting for. */
const END_SESSION_MS = 1_000;

/**
 * Closes a client without throwing. A sessionful legacy server (2025-era Streamable HTTP) is
 * told the session is over (HTTP DELETE) so it can free it, unless the session is kept for the
 * next call (`keepSession`: lib/mcp/legacy-sessions.ts); then only this connection closes.
 */
export async function closeQuietly(client: Client, opts: { keepSession?: boolean } = {}): Promise<void> {
  const transport = client.transport;
  if (!opts.keepSession && transport instanceof StreamableHTTPClientTransport && transport.sessionId) {
    await withinEndTime(transport.terminateSession().catch(() => {}));
  }
  await client.close().catch(() => {});
}

/** The session a connection holds when it is one worth keeping: 2025-era Streamable HTTP, with an `Mcp-Session-Id`. */
export function sessionOf(client: Client): KeptSession | undefined {
  const transport = client.transport;
  const protocolVersion = client.getNegotiatedProtocolVersion();
  if (!(transport instanceof StreamableHTTPClientTransport) || !transport.sessionId || !protocolVersion) return undefined;
  return client.getProtocolEra() === 'legacy' ? { sessionId: transport.sessionId, protocolVersion } : undefined;
}

/**
 * The server refused a request on a resumed session at its door: 404 is the spec's answer for a
 * session it no longer knows (expired, restarted); many published 2025-era servers answer 400
 * "No valid session ID" instead (server-everything, older Python SDKs). Either way the request
 * was not processed — a server answers a request it ran with 200 and its result or JSON-RPC
 * error — so it may be sent again on a new session.
 */
export function isSessionRefused(error: unknown): boolean {
  return error instanceof SdkHttpError && (error.status === 404 || error.status === 400);
}

/**
 * Tells a remote server that a kept session is over (HTTP DELETE with its id), through the same
 * guarded fetch, headers and OAuth as its calls. Best effort, within a second: true when the
 * server confirmed it (or does not allow ending sessions, 405).
 */
export async function endSession(
  server: McpServerConfig,
  caller: CallerIdentity,
  session: KeptSession,
  deps: ConnectDeps,
): Promise<boolean> {
  try {
    const { url, fetchFn, authProvider } = remoteAccess(server, caller, deps);
    const transport = new StreamableHTTPClientTransport(url, { fetch: fetchFn, authProvider, sessionId: session.sessionId });
    transport.setProtocolVersion(session.protocolVersion);
    await transport.start();
    const ended = await withinEndTime(
      transport.terminateSession().then(
        () => true,
        () => false,
      ),
    );
    await transport.close().catch(() => {});
    return ended === true;
  } catch {
    return false;
  }
}

function withinEndTime<T>(work: Promise<T>): Promise<T | undefined> {
  return Promise.race([work, new Promise<undefined>((r) => setTimeout(() => r(undefined), END_SESSION_MS).unref())]);
}

export { SdkError, SdkHttpError };
