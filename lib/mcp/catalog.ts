import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

import { toolViewOf } from './app-views';
import { checkToolSchema } from './schema-guard';
import type { CatalogTool, McpServerConfig, ReviewedTools, ServerCatalog, SkippedTool, ToolAnnotations, ToolView } from './types';
import { xMcpHeaderProblem } from './x-mcp-header';

/**
 * Turns a server's raw `tools/list` into the catalog the engine offers: each tool's schemas
 * checked (an unusable tool is left out with the reason), annotations reduced to plain
 * booleans, and a fingerprint that changes whenever anything the person approved changes.
 */

export const MAX_TOOLS_PER_SERVER = 200;
const MAX_DESCRIPTION = 8_000;
const MAX_NAME = 256;

/** A tool as a server lists it: every field is untrusted and possibly malformed. */
export type RawTool = Record<string, unknown>;

/**
 * Hints that ask for *more* caution are honoured in any truthy form a sloppy server might send;
 * hints that ask for *less* count only as the literal `true`.
 */
export function normalizeAnnotations(raw: unknown, title?: unknown): ToolAnnotations {
  const a = raw !== null && typeof raw === 'object' ? (raw as Record<string, unknown>) : {};
  const truthy = (v: unknown) => v === true || v === 'true' || v === 1;
  const out: ToolAnnotations = {
    readOnlyHint: a.readOnlyHint === true,
    destructiveHint: truthy(a.destructiveHint),
    idempotentHint: a.idempotentHint === true,
    openWorldHint: truthy(a.openWorldHint),
  };
  const t = typeof a.title === 'string' ? a.title : typeof title === 'string' ? title : undefined;
  if (t) out.title = t.slice(0, MAX_NAME);
  return out;
}

const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;

/** The boolean hints a server declared, as it declared them; undefined when it sent no annotations. */
export function declaredAnnotations(raw: unknown): ToolAnnotations | undefined {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  const a = raw as Record<string, unknown>;
  const out: ToolAnnotations = {};
  for (const hint of HINTS) if (typeof a[hint] === 'boolean') out[hint] = a[hint] as boolean;
  return out;
}

interface FingerprintedTool {
  name: string;
  title?: unknown;
  description?: unknown;
  inputSchema?: unknown;
  outputSchema?: unknown;
  annotations?: unknown;
  view?: ToolView;
}

/**
 * SHA-256 over RFC 8785 JSON of what a grant covers: URL, name, top-level title, description,
 * schemas, hints. The title is the name people read on cards and review panels, so renaming a
 * reviewed tool "Read file" is a change like any other. It is in the hashed body only when the
 * tool has one: a tool without a title keeps the fingerprint earlier releases stored for it.
 */
export function toolFingerprint(url: string, tool: FingerprintedTool): string {
  return sha256(
    canonicalize({
      url,
      name: tool.name,
      ...(typeof tool.title === 'string' && { title: tool.title }),
      description: tool.description ?? null,
      inputSchema: tool.inputSchema ?? null,
      outputSchema: tool.outputSchema ?? null,
      annotations: tool.annotations ?? null,
      // Where its interactive view comes from and who may call it: a tool that starts showing
      // another view, or becomes callable by the model, is a change the person reviews again.
      // Only present for a tool with a view, so every other tool keeps its fingerprint.
      ...(tool.view && { view: tool.view }),
    }),
  );
}

/**
 * The fingerprint releases before titles counted gave a tool (only for a tool that has a title:
 * without one it is the fingerprint itself). Approvals stored then are matched against it once,
 * see `reviewState`.
 */
function untitledFingerprint(url: string, tool: FingerprintedTool): string | undefined {
  if (typeof tool.title !== 'string') return undefined;
  return toolFingerprint(url, { ...tool, title: undefined });
}

function sha256(body: string | undefined): string {
  return createHash('sha256')
    .update(body ?? '')
    .digest('hex');
}

/**
 * Whether the person approved the tool as it is listed now: `current` for an approval of this
 * exact definition; `before_titles` for an approval stored before titles counted that matches
 * everything but the title (which was not recorded then) — the tool host pins it to today's
 * fingerprint at once (`pinReviewedTitles`), so a rename after that is a change; `no` otherwise.
 */
export function reviewState(
  reviewed: ReviewedTools,
  tool: Pick<CatalogTool, 'name' | 'fingerprint' | 'untitledFingerprint'>,
): 'current' | 'before_titles' | 'no' {
  if (reviewed.tools[tool.name] === tool.fingerprint) return 'current';
  const before = reviewed.beforeTitles?.[tool.name];
  if (before !== undefined && before === (tool.untitledFingerprint ?? tool.fingerprint)) return 'before_titles';
  return 'no';
}

export function buildServerCatalog(
  server: McpServerConfig,
  rawTools: RawTool[],
  opts: {
    truncated?: boolean;
    maxTools?: number;
    /** Listed over the 2026-07-28 protocol: tools with invalid `x-mcp-header` declarations are left out. */
    modern?: boolean;
    /** `viewContentHash` of each view read while listing, by its `ui://` URI (./app-views.ts). */
    viewHashes?: ReadonlyMap<string, string>;
  } = {},
): ServerCatalog {
  const max = opts.maxTools ?? MAX_TOOLS_PER_SERVER;
  const tools: CatalogTool[] = [];
  const skipped: SkippedTool[] = [];
  const seen = new Set<string>();
  for (const raw of rawTools.slice(0, max)) {
    const entry = catalogEntry(server, raw, seen, opts.modern === true, opts.viewHashes);
    if ('reason' in entry) skipped.push(entry);
    else tools.push(entry);
  }
  return { server, tools, skipped, truncated: Boolean(opts.truncated) || rawTools.length > max };
}

function catalogEntry(
  server: McpServerConfig,
  raw: RawTool,
  seen: Set<string>,
  modern: boolean,
  viewHashes?: ReadonlyMap<string, string>,
): CatalogTool | SkippedTool {
  const name = typeof raw.name === 'string' ? raw.name : '';
  const skip = (reason: string): SkippedTool => ({ serverId: server.id, name: name || '(unnamed)', reason });
  if (!name) return skip('the tool has no name');
  if (name.length > MAX_NAME) return skip(`its name is longer than ${MAX_NAME} characters`);
  if (seen.has(name)) return skip('the server lists another tool with the same name');
  seen.add(name);

  const input = checkToolSchema(raw.inputSchema, { requireObject: true });
  if (!input.ok) return skip(`its input schema is unusable: ${input.reason}`);
  const headers = modern ? xMcpHeaderProblem(raw.inputSchema) : null;
  if (headers) return skip(`its input schema is unusable: ${headers}`);
  const hasOutput = raw.outputSchema !== undefined && raw.outputSchema !== null;
  if (hasOutput) {
    const output = checkToolSchema(raw.outputSchema);
    if (!output.ok) return skip(`its output schema is unusable: ${output.reason}`);
  }

  const description = typeof raw.description === 'string' ? raw.description : undefined;
  const annotations = normalizeAnnotations(raw.annotations, raw.title);
  const declaredView = toolViewOf(raw._meta);
  const contentHash = declaredView && viewHashes?.get(declaredView.resourceUri);
  const view = declaredView && contentHash ? { ...declaredView, contentHash } : declaredView;
  const definition: FingerprintedTool = {
    name,
    title: raw.title,
    description,
    inputSchema: raw.inputSchema,
    outputSchema: hasOutput ? raw.outputSchema : undefined,
    annotations: raw.annotations,
    view,
  };
  const tool: CatalogTool = {
    serverId: server.id,
    namespace: server.namespace,
    serverName: server.displayName,
    trust: server.trust,
    name,
    inputSchema: raw.inputSchema as Record<string, unknown>,
    annotations,
    fingerprint: toolFingerprint(server.url, definition),
  };
  const untitled = untitledFingerprint(server.url, definition);
  if (untitled) tool.untitledFingerprint = untitled;
  const declared = declaredAnnotations(raw.annotations);
  if (declared) tool.declaredAnnotations = declared;
  const title = typeof raw.title === 'string' ? raw.title : annotations.title;
  if (title) tool.title = title.slice(0, MAX_NAME);
  // Cut only what the model reads; the fingerprint above covers the full text.
  if (description !== undefined) tool.description = description.slice(0, MAX_DESCRIPTION);
  if (hasOutput) tool.outputSchema = raw.outputSchema as Record<string, unknown>;
  if (view) tool.view = view;
  const execution = raw.execution;
  const taskSupport = execution !== null && typeof execution === 'object' && 'taskSupport' in execution ? execution.taskSupport : undefined;
  if (taskSupport === 'optional' || taskSupport === 'required') tool.taskSupport = taskSupport;
  return tool;
}
