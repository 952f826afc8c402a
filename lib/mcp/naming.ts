import { createHash } from 'node:crypto';

/**
 * Model-facing tool names: `<namespace>__<tool>` fitted to the Messages API rule
 * `^[a-zA-Z0-9_-]{1,64}$`. A name that already fits is used as is. Otherwise illegal characters
 * become `_` and a short hash of the tool's identity (server id + tool name) is appended, cutting
 * the name to fit: the result depends only on that tool, not on its neighbours, so it stays
 * stable as other tools come and go. Remaining clashes are settled deterministically.
 */

export const MODEL_NAME_MAX = 64;
/** Between namespace and tool name. */
export const NAME_SEPARATOR = '__';

/**
 * A server's namespace: lower-case letters, digits and `-`, with single `_` inside. It never
 * contains `__` and never starts or ends with `_`, so `<namespace>__<tool>` splits one way only:
 * otherwise namespace `a` with tool `_x` and namespace `a_` with tool `x` would both want `a___x`,
 * and which one kept it would depend on server ids (adding a server could move a name the model
 * and the person already know).
 */
export const NAMESPACE_PATTERN = /^[a-z0-9-]+(?:_[a-z0-9-]+)*$/;
export const NAMESPACE_MAX = 32;
/** The host's own tools (e.g. paging a large result) live here: no server may use it. */
export const RESERVED_NAMESPACE = 'switchboard';

/** Why a namespace cannot be used, in words; null when it can. */
export function namespaceProblem(namespace: string): string | null {
  if (!namespace) return 'must not be empty';
  if (namespace.length > NAMESPACE_MAX) return `must be at most ${NAMESPACE_MAX} characters (got ${namespace.length})`;
  if (!NAMESPACE_PATTERN.test(namespace)) {
    return (
      `"${namespace}" is not allowed: use lower-case letters, digits and "-", with single "_" between them ` +
      '(no "__", and no "_" at the start or end)'
    );
  }
  if (namespace === RESERVED_NAMESPACE) return `"${namespace}" is reserved for Switchboard's own tools`;
  return null;
}

/** The plain model-facing name of a tool: `<namespace>__<tool>`. */
export function joinToolName(namespace: string, tool: string): string {
  return `${namespace}${NAME_SEPARATOR}${tool}`;
}
const LEGAL = /^[a-zA-Z0-9_-]{1,64}$/;
const HASH_LEN = 8;

export interface NamedTool {
  serverId: string;
  namespace: string;
  name: string;
}

export interface ToolRoute {
  serverId: string;
  tool: string;
}

export interface ToolNames {
  byModelName: Record<string, ToolRoute>;
  /** The model-facing name of a tool in the list; throws for a tool that was not in it. */
  modelNameOf(serverId: string, tool: string): string;
}

function shortHash(...parts: string[]): string {
  return createHash('sha256').update(parts.join('\0')).digest('hex').slice(0, HASH_LEN);
}

/** The preferred name of one tool, computed from that tool alone. */
export function candidateName(namespace: string, tool: string, serverId: string): string {
  const raw = joinToolName(namespace, tool);
  if (LEGAL.test(raw)) return raw;
  return withSuffix(raw.replace(/[^a-zA-Z0-9_-]/g, '_'), shortHash(serverId, tool));
}

function withSuffix(base: string, suffix: string): string {
  return `${base.slice(0, MODEL_NAME_MAX - suffix.length - 1)}_${suffix}`;
}

const key = (serverId: string, tool: string) => JSON.stringify([serverId, tool]);

export function buildToolNames(tools: NamedTool[]): ToolNames {
  const unique = new Map<string, NamedTool>();
  for (const t of tools) unique.set(key(t.serverId, t.name), t);

  // Group by preferred name; the order inside a group never depends on input order.
  const groups = new Map<string, NamedTool[]>();
  for (const t of unique.values()) {
    const name = candidateName(t.namespace, t.name, t.serverId);
    groups.set(name, [...(groups.get(name) ?? []), t]);
  }

  const byModelName: Record<string, ToolRoute> = {};
  const byTool = new Map<string, string>();
  const taken = new Set(groups.keys());
  const assign = (name: string, t: NamedTool) => {
    byModelName[name] = { serverId: t.serverId, tool: t.name };
    byTool.set(key(t.serverId, t.name), name);
  };

  for (const [name, members] of [...groups.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    // The tool whose literal name this is keeps it; otherwise the lowest (server id, tool).
    const sorted = [...members].sort((a, b) => {
      const exactA = joinToolName(a.namespace, a.name) === name ? 0 : 1;
      const exactB = joinToolName(b.namespace, b.name) === name ? 0 : 1;
      return exactA - exactB || (key(a.serverId, a.name) < key(b.serverId, b.name) ? -1 : 1);
    });
    assign(name, sorted[0]!);
    for (const t of sorted.slice(1)) {
      let n = 1;
      let alt: string;
      do alt = withSuffix(name, shortHash(t.serverId, t.name, String(n++)));
      while (taken.has(alt));
      taken.add(alt);
      assign(alt, t);
    }
  }

  return {
    byModelName,
    modelNameOf(serverId, tool) {
      const name = byTool.get(key(serverId, tool));
      if (!name) throw new Error(`No model-facing name for tool "${tool}" of server ${serverId}: it was not in the list`);
      return name;
    },
  };
}
