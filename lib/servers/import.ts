/**
 * Reads a Claude Desktop (`mcpServers`) or VS Code (`servers`, also under `mcp` in
 * settings.json) configuration. Pure: it decides what could be added and why not, and never
 * expands a placeholder such as `${env:API_KEY}` or `${input:token}` — the value would come from
 * the person's computer, which a web app must not guess at.
 */

export const MAX_IMPORT_ENTRIES = 50;

export const STDIO_REASON = 'runs a local program; a web app cannot start programs on your computer';

export interface ImportCandidate {
  name: string;
  url: string;
  /** Only headers whose values are literal text. */
  headers: Record<string, string>;
}

export interface ImportPlan {
  candidates: ImportCandidate[];
  notUsable: Array<{ name: string; reason: string }>;
  problems: Array<{ name: string; field: string; message: string }>;
}

export class ImportShapeError extends Error {}

const PLACEHOLDER = /\$\{[^}]*\}/;
const REMOTE_TYPES = new Set(['http', 'sse', 'streamable-http', 'streamable_http', 'streamablehttp']);

export function hasPlaceholder(value: string): boolean {
  return PLACEHOLDER.test(value);
}

/** The entries of the config, whichever of the known shapes it has. */
function entriesOf(config: unknown): Array<[string, unknown]> {
  if (config === null || typeof config !== 'object' || Array.isArray(config)) {
    throw new ImportShapeError('The configuration must be a JSON object.');
  }
  const root = config as Record<string, unknown>;
  const mcp = root.mcp !== null && typeof root.mcp === 'object' ? (root.mcp as Record<string, unknown>) : undefined;
  const table = root.mcpServers ?? root.servers ?? mcp?.servers;
  if (table === undefined) {
    throw new ImportShapeError(
      'Found no servers: expected a Claude Desktop configuration with "mcpServers" or a VS Code one with "servers".',
    );
  }
  if (table === null || typeof table !== 'object' || Array.isArray(table)) {
    throw new ImportShapeError('"mcpServers" / "servers" must be an object of server name → settings.');
  }
  const entries = Object.entries(table as Record<string, unknown>);
  if (entries.length > MAX_IMPORT_ENTRIES) {
    throw new ImportShapeError(`The configuration lists ${entries.length} servers; at most ${MAX_IMPORT_ENTRIES} can be imported at once.`);
  }
  return entries;
}

export function planImport(config: unknown): ImportPlan {
  const plan: ImportPlan = { candidates: [], notUsable: [], problems: [] };
  for (const [name, raw] of entriesOf(config)) {
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
      plan.problems.push({ name, field: name, message: 'The entry must be an object with a "url" (or a "command").' });
      continue;
    }
    const entry = raw as Record<string, unknown>;
    const type = typeof entry.type === 'string' ? entry.type.toLowerCase() : undefined;
    if (type === 'stdio' || (entry.command !== undefined && entry.url === undefined)) {
      plan.notUsable.push({ name, reason: STDIO_REASON });
      continue;
    }
    if (type !== undefined && !REMOTE_TYPES.has(type)) {
      plan.notUsable.push({ name, reason: `its type "${entry.type as string}" is not one Switchboard knows (http or sse)` });
      continue;
    }
    if (typeof entry.url !== 'string' || !entry.url.trim()) {
      plan.problems.push({ name, field: 'url', message: 'The entry has no "url": only remote servers can be added.' });
      continue;
    }
    if (hasPlaceholder(entry.url)) {
      plan.problems.push({
        name,
        field: 'url',
        message: 'The URL contains a placeholder (such as ${input:…}); Switchboard does not expand them. Add this server by hand.',
      });
      continue;
    }
    const headers: Record<string, string> = {};
    if (entry.headers !== undefined) {
      if (entry.headers === null || typeof entry.headers !== 'object' || Array.isArray(entry.headers)) {
        plan.problems.push({ name, field: 'headers', message: '"headers" is not an object; the server was added without headers.' });
      } else {
        for (const [header, value] of Object.entries(entry.headers as Record<string, unknown>)) {
          const field = `headers.${header}`;
          if (typeof value !== 'string') {
            plan.problems.push({ name, field, message: `The value of "${header}" is not text; the server was added without it.` });
          } else if (hasPlaceholder(value)) {
            plan.problems.push({
              name,
              field,
              message:
                `The value of "${header}" is a placeholder (such as \${env:…} or \${input:…}), which Switchboard never expands: ` +
                'the server was added without this header. Enter its value on the servers page.',
            });
          } else {
            headers[header] = value;
          }
        }
      }
    }
    plan.candidates.push({ name, url: entry.url.trim(), headers });
  }
  return plan;
}
