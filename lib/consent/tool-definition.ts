import canonicalize from 'canonicalize';

import type { GrantedTool } from '@/db/stored-json';
import type { CatalogTool } from '@/lib/mcp/types';

/**
 * What a grant remembers of each tool it covers — the fingerprint and the definition behind it —
 * and what changed since, for the panel's "this tool changed, look again" diff.
 */

export function grantedToolOf(tool: CatalogTool, serverUrl: string): GrantedTool {
  return {
    fingerprint: tool.fingerprint,
    title: tool.title ?? null,
    description: tool.description ?? null,
    inputSchema: tool.inputSchema,
    outputSchema: tool.outputSchema ?? null,
    annotations: { ...tool.annotations },
    serverUrl,
  };
}

/**
 * The tool is listed now as it was granted. A grant given before titles counted in the
 * fingerprint recorded the title beside it, so it still holds when everything else and the
 * title are unchanged.
 */
export function sameDefinition(granted: GrantedTool, now: CatalogTool): boolean {
  if (granted.fingerprint === now.fingerprint) return true;
  return now.untitledFingerprint !== undefined && granted.fingerprint === now.untitledFingerprint && granted.title === (now.title ?? null);
}

export interface DefinitionChange {
  field: string;
  before: string;
  after: string;
}

const FIELDS = ['serverUrl', 'title', 'description', 'inputSchema', 'outputSchema', 'annotations'] as const;

/** Field by field, what differs between the definition granted and the tool as listed now. */
export function definitionChanges(granted: GrantedTool, now: CatalogTool, serverUrl: string): DefinitionChange[] {
  const current = grantedToolOf(now, serverUrl);
  const changes: DefinitionChange[] = [];
  for (const field of FIELDS) {
    const before = show(granted[field]);
    const after = show(current[field]);
    if (before !== after) changes.push({ field, before, after });
  }
  return changes;
}

function show(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'string' ? value : (canonicalize(value) ?? '');
}
