/**
 * `npm run mcp:conformance-client -- <url>`: the client under test for the official MCP
 * conformance runner (`npm run test:conformance`). It reaches the scenario's server through the
 * app's own code — `createMcpGateway` (connection, era negotiation, catalog, tool calls) over
 * the URL guard's fetch (loopback allowed: the runner's servers live on 127.0.0.1) — and plays
 * the part a person and the engine play in the app: list the tools, call them, answer what the
 * server asks, sign in when the server says so.
 *
 * The runner sets MCP_CONFORMANCE_SCENARIO (which scenario), MCP_CONFORMANCE_CONTEXT (JSON:
 * credentials, tool calls to make) and appends the server URL as the last argument. Exit 0
 * when the flow ran; the runner judges conformance from what the server saw.
 */
import { randomBytes } from 'node:crypto';

import { openPglite, openPostgres, type DbHandle } from '@/db/connection';
import { authSessions, users } from '@/db/schema';
import { createMcpGateway, type SwitchboardGateway } from '@/lib/mcp/gateway';
import { completeSignIn, gatewayOAuth, startSignIn, type OAuthDeps, type OAuthServerRef } from '@/lib/mcp/oauth';
import { inputProblem } from '@/lib/mcp/schema-guard';
import type { CallOutcome, CatalogTool, McpServerConfig } from '@/lib/mcp/types';
import { createGuardedFetch } from '@/lib/mcp/url-guard';
import { createSecretBox } from '@/lib/secrets/secret-box';

const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const url = process.argv.at(-1) ?? '';
const context = parseContext(process.env.MCP_CONFORMANCE_CONTEXT);

let CALLER = { userId: 'conformance' };
const guardedFetch = createGuardedFetch({ allowLoopback: true });
const TIMEOUT_MS = 60_000;

function parseContext(raw: string | undefined): Record<string, unknown> {
  if (!raw) return {};
  try {
    const value: unknown = JSON.parse(raw);
    return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  } catch {
    throw new Error('MCP_CONFORMANCE_CONTEXT is not valid JSON');
  }
}

function log(...parts: unknown[]) {
  console.error('[switchboard-conformance]', ...parts);
}

const server: McpServerConfig = {
  id: 'conformance',
  namespace: 'conformance',
  displayName: 'the conformance server',
  url,
  trust: 'untrusted',
  timeoutMs: TIMEOUT_MS,
};

type Schema = Record<string, unknown>;
type Resume = { inputResponses: Record<string, unknown>; requestState?: string };

/** Set for auth scenarios: the user, session and OAuth deps the sign-in uses. */
let signIn: SignIn | undefined;

function makeGateway(): SwitchboardGateway {
  return createMcpGateway({
    // The same guard as production, with loopback allowed because these servers are local.
    fetch: guardedFetch,
    ...(signIn && { oauth: gatewayOAuth(signIn.deps) }),
    // A 2025-era server asks mid-call: the person accepts the form as it is pre-filled.
    elicit: async (params) => {
      if (params.mode === 'url') return { action: 'decline' };
      const content = formAnswer(params.requestedSchema as Schema);
      log(`answered an elicitation: ${JSON.stringify(content)}`);
      return { action: 'accept', content: content as Record<string, string | number | boolean> };
    },
  });
}

async function listTools(gateway: SwitchboardGateway): Promise<CatalogTool[]> {
  let catalog = await gateway.listTools(server, CALLER);
  while (catalog.needsSignIn && (await signInAgain(catalog.needsSignIn.scopes))) catalog = await gateway.listTools(server, CALLER);
  if (catalog.error) throw new Error(catalog.error);
  for (const s of catalog.skipped) log(`left out ${s.name}: ${s.reason}`);
  log(`listed ${catalog.tools.length} tools (${catalog.era ?? 'unknown'} era)`);
  return catalog.tools;
}

async function call(gateway: SwitchboardGateway, tool: CatalogTool, args: Record<string, unknown>, resume?: Resume): Promise<CallOutcome> {
  const outcome = await gateway.callTool(server, tool.name, args, {
    caller: CALLER,
    signal: new AbortController().signal,
    timeoutMs: TIMEOUT_MS,
    inputSchema: tool.inputSchema,
    onProgress: (p) => log(`progress on ${tool.name}: ${p.progress}${p.total !== undefined ? `/${p.total}` : ''}`),
    ...(resume && { resume }),
  });
  log(`called ${tool.name}: ${outcome.kind}${'message' in outcome ? ` (${outcome.message})` : ''}`);
  // The engine parks such a call until the person has signed in, then runs it again.
  if (outcome.kind === 'needs_sign_in' && (await signInAgain(outcome.scopes))) return call(gateway, tool, args, resume);
  return outcome;
}

/** A value of the schema's type: its default when it has one (what a pre-filled form holds). */
function sampleValue(prop: Schema, n: number): unknown {
  if ('default' in prop) return prop.default;
  if ('const' in prop) return prop.const;
  if (Array.isArray(prop.enum) && prop.enum.length > 0) return prop.enum[0];
  const oneOf = Array.isArray(prop.oneOf) ? (prop.oneOf as Schema[]) : [];
  if (oneOf[0] && 'const' in oneOf[0]) return oneOf[0].const;
  const type = Array.isArray(prop.type) ? prop.type.find((t) => t !== 'null') : prop.type;
  if (type === 'number' || type === 'integer') return n;
  if (type === 'boolean') return true;
  if (type === 'array') return [];
  if (type === 'object') return sampleArguments(prop);
  return 'test';
}

/** Arguments for a tool: every required property, and optional ones that have a default. */
export function sampleArguments(schema: Schema): Record<string, unknown> {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const args: Record<string, unknown> = {};
  let n = 2;
  for (const [key, prop] of Object.entries(properties)) {
    if (prop === null || typeof prop !== 'object') continue;
    if (required.has(key) || 'default' in prop) args[key] = sampleValue(prop, n++);
  }
  return args;
}

/** The answer to an elicitation form: every field, defaults where the server gave them. */
function formAnswer(schema: Schema | undefined): Record<string, unknown> {
  const properties = (schema?.properties ?? {}) as Record<string, Schema>;
  const content: Record<string, unknown> = {};
  let n = 1;
  for (const [key, prop] of Object.entries(properties)) if (prop && typeof prop === 'object') content[key] = sampleValue(prop, n++);
  // Checked as the app checks a person's answer before sending it.
  const problem = schema ? inputProblem(schema, content) : null;
  if (problem) throw new Error(`the generated answer does not fit the form: ${problem}`);
  return content;
}

/**
 * The engine's tool loop without the model: each planned call runs; a call that comes back
 * `input_required` waits (the person answers later, other calls go on meanwhile), then is run
 * again with the answers and the server's exact request state.
 */
async function runCalls(
  gateway: SwitchboardGateway,
  tools: CatalogTool[],
  planned: { name: string; arguments: Record<string, unknown> }[],
) {
  const waiting: { tool: CatalogTool; args: Record<string, unknown>; outcome: Extract<CallOutcome, { kind: 'input_required' }> }[] = [];
  for (const p of planned) {
    const tool = tools.find((t) => t.name === p.name);
    if (!tool) {
      log(`not calling ${p.name}: it is not in the catalog`);
      continue;
    }
    const outcome = await call(gateway, tool, p.arguments);
    if (outcome.kind === 'input_required') waiting.push({ tool, args: p.arguments, outcome });
  }
  for (let round = 0; waiting.length > 0 && round < 5; round++) {
    for (const w of waiting.splice(0)) {
      const inputResponses: Record<string, unknown> = {};
      for (const [key, request] of Object.entries(w.outcome.inputRequests)) {
        const params = (request.params ?? {}) as Schema;
        inputResponses[key] =
          request.method === 'elicitation/create' && params.mode !== 'url'
            ? { action: 'accept', content: formAnswer(params.requestedSchema as Schema | undefined) }
            : { action: 'decline' };
      }
      const resume: Resume = { inputResponses, ...(w.outcome.requestState !== undefined && { requestState: w.outcome.requestState }) };
      const outcome = await call(gateway, w.tool, w.args, resume);
      if (outcome.kind === 'input_required') waiting.push({ ...w, outcome });
    }
  }
}

/** Every listed tool called once (or the calls the scenario's context names, with their arguments). */
async function listAndCall(): Promise<void> {
  const gateway = makeGateway();
  const tools = await listTools(gateway);
  const planned = Array.isArray(context.toolCalls)
    ? (context.toolCalls as { name: string; arguments?: Record<string, unknown> }[]).map((c) => ({
        name: c.name,
        arguments: c.arguments ?? {},
      }))
    : tools.map((t) => ({ name: t.name, arguments: sampleArguments(t.inputSchema) }));
  await runCalls(gateway, tools, planned);
}

async function listOnly(): Promise<void> {
  await listTools(makeGateway());
}

/** The schema a tool was listed with goes back verbatim (the catalog must not rewrite it). */
async function echoSchema(): Promise<void> {
  const gateway = makeGateway();
  const tools = await listTools(gateway);
  const focal = tools.find((t) => t.name === 'json_schema_2020_12_tool');
  if (!focal) throw new Error('the catalog has no json_schema_2020_12_tool');
  await runCalls(gateway, tools, [{ name: 'json_schema_echo', arguments: { schema: focal.inputSchema } }]);
}

const handlers: Record<string, () => Promise<void>> = {
  initialize: listOnly,
  tools_call: listAndCall,
  'elicitation-sep1034-client-defaults': listAndCall,
  'sse-retry': listAndCall,
  'json-schema-ref-no-deref': listOnly,
  'json-schema-2020-12-preservation': echoSchema,
  'http-standard-headers': listAndCall,
  'http-custom-headers': listAndCall,
  'http-invalid-tool-headers': listAndCall,
  'request-metadata': listOnly,
  'sep-2322-client-request-state': listAndCall,
};

// ---------------------------------------------------------------------------------------------
// Sign-in (OAuth): the app's lib/mcp/oauth on a database of its own, the person's browser
// played by following the authorization redirect without one.

interface SignIn {
  deps: OAuthDeps;
  userId: string;
  sessionId: string;
  ref: OAuthServerRef;
  attempts: number;
}

/** Sign-ins one flow may start: a server that keeps asking for more must not loop forever. */
const MAX_SIGN_INS = 3;
/**
 * The client identity the conformance authorization servers expect for a client ID metadata
 * document (the app publishes its own at /oauth/client-metadata.json).
 */
const CONFORMANCE_CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';
const APP_ORIGIN = 'https://conformance-test.local';

/**
 * Postgres when MCP_CONFORMANCE_DATABASE_URL names one (`test:conformance` makes a database of
 * its own for a run; one user per client), else an in-memory PGlite. Never the app's own
 * DATABASE_URL: a test user does not belong there.
 */
async function openDatabase(): Promise<DbHandle> {
  const urlOf = process.env.MCP_CONFORMANCE_DATABASE_URL;
  const handle = urlOf ? await openPostgres(urlOf, { max: 2 }) : await openPglite();
  await handle.migrate();
  return handle;
}

async function prepareSignIn(): Promise<() => Promise<void>> {
  const handle = await openDatabase();
  const [user] = await handle.db
    .insert(users)
    .values({ email: `conformance-${randomBytes(6).toString('hex')}@example.com` })
    .returning();
  const sessionId = randomBytes(16).toString('hex');
  await handle.db.insert(authSessions).values({ id: sessionId, userId: user!.id, expiresAt: new Date(Date.now() + 3_600_000) });
  const clientId = typeof context.client_id === 'string' ? context.client_id : undefined;
  const clientSecret = typeof context.client_secret === 'string' ? context.client_secret : undefined;
  signIn = {
    deps: {
      db: handle.db,
      // The app's secret box under a key of this run only: the database is thrown away afterwards.
      box: createSecretBox(randomBytes(32)),
      fetch: guardedFetch,
      appOrigin: APP_ORIGIN,
      clientMetadataUrl: CONFORMANCE_CLIENT_METADATA_URL,
    },
    userId: user!.id,
    sessionId,
    // A pre-registered client (the server's settings) when the scenario hands one over.
    ref: { id: server.id, displayName: server.displayName, url, ...(clientId && { oauthClient: { clientId, clientSecret } }) },
    attempts: 0,
  };
  CALLER = { userId: user!.id };
  return () => handle.close();
}

/**
 * What "Connect" and the provider's page do: start the sign-in, let the provider answer (the
 * conformance authorization server approves at once and redirects), complete it as the callback
 * route does. False when no (further) sign-in may be tried.
 */
async function signInAgain(scopes: string[] | undefined): Promise<boolean> {
  if (!signIn) return false;
  if (signIn.attempts >= MAX_SIGN_INS) {
    log(`not signing in again: ${MAX_SIGN_INS} sign-ins already`);
    return false;
  }
  signIn.attempts++;
  log(`signing in (attempt ${signIn.attempts}${scopes?.length ? `, scopes "${scopes.join(' ')}"` : ''})`);
  const { authorizationUrl } = await startSignIn(signIn.deps, {
    userId: signIn.userId,
    sessionId: signIn.sessionId,
    server: signIn.ref,
    returnTo: '/',
  });
  // The browser: the authorization URL is checked by the same guard; its redirect is read, not followed.
  const answer = await guardedFetch(authorizationUrl, { redirect: 'manual' });
  const location = answer.headers.get('location');
  await answer.body?.cancel().catch(() => {});
  if (!location) throw new Error(`the authorization endpoint answered ${answer.status} without a redirect`);
  const callback = new URL(location, authorizationUrl);
  await completeSignIn(signIn.deps, {
    userId: signIn.userId,
    sessionId: signIn.sessionId,
    params: callback.searchParams,
    loadServer: async (id) => (id === signIn!.ref.id ? signIn!.ref : null),
  });
  log('signed in');
  return true;
}

async function main(): Promise<void> {
  if (!url) throw new Error('Usage: mcp-conformance-client <server-url> (with MCP_CONFORMANCE_SCENARIO set)');
  const handler = handlers[scenario] ?? (scenario.startsWith('auth/') ? listAndCall : undefined);
  if (!handler) throw new Error(`No flow for the scenario "${scenario}".`);
  log(`scenario ${scenario} against ${url}`);
  const close = scenario.startsWith('auth/') ? await prepareSignIn() : undefined;
  try {
    await handler();
  } finally {
    await close?.();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    log('failed:', error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
