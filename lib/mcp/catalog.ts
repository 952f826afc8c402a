import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

import { checkToolSchema } from './schema-guard';
import type { CatalogTool, McpServerConfig, ServerCatalog, SkippedTool, ToolAnnotations } from './types';
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

/** SHA-256 over RFC 8785 JSON of what a grant covers: URL, name, description, schemas, hints. */
export function toolFingerprint(
  url: string,
  tool: { name: string; description?: unknown; inputSchema?: unknown; outputSchema?: unknown; annotations?: unknown },
): string {
  const body = canonicalize({
    url,
    name: tool.name,
    description: tool.description ?? null,
    inputSchema: tool.inputSchema ?? null,
    outputSchema: tool.outputSchema ?? null,
    annotations: tool.annotations ?? null,
  });
  return createHash('sha256')
    .update(body ?? '')
    .digest('hex');
}

export function buildServerCatalog(
  server: McpServerConfig,
  rawTools: RawTool[],
  opts: {
    truncated?: boolean;
    maxTools?: number;
    /** Listed over the 2026-07-28 protocol: tools with invalid `x-mcp-header` declarations are left out. */
    modern?: boolean;
  } = {},
): ServerCatalog {
  const max = opts.maxTools ?? MAX_TOOLS_PER_SERVER;
  const tools: CatalogTool[] = [];
  const skipped: SkippedTool[] = [];
  const seen = new Set<string>();
  for (const raw of rawTools.slice(0, max)) {
    const entry = catalogEntry(server, raw, seen, opts.modern === true);
    if ('reason' in entry) skipped.push(entry);
    else tools.push(entry);
  }
  return { server, tools, skipped, truncated: Boolean(opts.truncated) || rawTools.length > max };
}

function catalogEntry(server: McpServerConfig, raw: RawTool, seen: Set<string>, modern: boolean): CatalogTool | SkippedTool {
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
  const tool: CatalogTool = {
    serverId: server.id,
    namespace: server.namespace,
    serverName: server.displayName,
    trust: server.trust,
    name,
    inputSchema: raw.inputSchema as Record<string, unknown>,
    annotations,
    fingerprint: toolFingerprint(server.url, {
      name,
      description,
      inputSchema: raw.inputSchema,
      outputSchema: hasOutput ? raw.outputSchema : undefined,
      annotations: raw.annotations,
    }),
  };
  const declared = declaredAnnotations(raw.annotations);
  if (declared) tool.declaredAnnotations = declared;
  const title = typeof raw.title === 'string' ? raw.title : annotations.title;
  if (title) tool.title = title.slice(0, MAX_NAME);
  // Cut only what the model reads; the fingerprint above covers the full text.
  if (description !== undefined) tool.description = description.slice(0, MAX_DESCRIPTION);
  if (hasOutput) tool.outputSchema = raw.outputSchema as Record<string, unknown>;
  return tool;
}
