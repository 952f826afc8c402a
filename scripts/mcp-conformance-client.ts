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
import { createMcpGateway, type SwitchboardGateway } from '@/lib/mcp/gateway';
import { inputProblem } from '@/lib/mcp/schema-guard';
import type { CallOutcome, CatalogTool, McpServerConfig } from '@/lib/mcp/types';
import { createGuardedFetch } from '@/lib/mcp/url-guard';

const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const url = process.argv.at(-1) ?? '';
const context = parseContext(process.env.MCP_CONFORMANCE_CONTEXT);

const CALLER = { userId: 'conformance' };
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

function makeGateway(): SwitchboardGateway {
  return createMcpGateway({
    // The same guard as production, with loopback allowed because these servers are local.
    fetch: createGuardedFetch({ allowLoopback: true }),
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
  const catalog = await gateway.listTools(server, CALLER);
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

async function main(): Promise<void> {
  if (!url) throw new Error('Usage: mcp-conformance-client <server-url> (with MCP_CONFORMANCE_SCENARIO set)');
  const handler = handlers[scenario];
  if (!handler) throw new Error(`No flow for the scenario "${scenario}".`);
  log(`scenario ${scenario} against ${url}`);
  await handler();
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    log('failed:', error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
