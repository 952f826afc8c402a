/**
 * Grant scopes, written like OAuth scopes: `tool:<serverId>/<tool>` for one tool,
 * `server:<serverId>/*` for every tool a server has when the grant is given. Ids, never display
 * names: a server renamed or a namespace changed keeps its grants, another server with the same
 * name gets none. Server ids are UUIDs or `builtin-<namespace>` (no `/`); a tool name may hold
 * any character but is never empty.
 */

export type Scope = { kind: 'tool'; serverId: string; tool: string } | { kind: 'server'; serverId: string };

const SERVER_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

export function toolScope(serverId: string, tool: string): string {
  return `tool:${serverId}/${tool}`;
}

export function serverScope(serverId: string): string {
  return `server:${serverId}/*`;
}

/** The scope a string names, or null when it is not one (the caller says what is allowed). */
export function parseScope(s: string): Scope | null {
  const m = /^(tool|server):([^/]+)\/(.+)$/s.exec(s);
  if (!m) return null;
  const [, kind, serverId, rest] = m as unknown as [string, 'tool' | 'server', string, string];
  if (!SERVER_ID.test(serverId)) return null;
  if (kind === 'server') return rest === '*' ? { kind, serverId } : null;
  return rest.length <= 256 ? { kind, serverId, tool: rest } : null;
}

/** Every scope string that could cover this tool, most specific first. */
export function scopesCovering(serverId: string, tool: string): string[] {
  return [toolScope(serverId, tool), serverScope(serverId)];
}

export const SCOPE_FORMS = '"tool:<serverId>/<tool>" or "server:<serverId>/*"';
