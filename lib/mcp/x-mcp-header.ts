/**
 * SEP-2243 (2026-07-28 Streamable HTTP): a tool's `inputSchema` may mark primitive properties
 * with `x-mcp-header: "<Name>"`, and the client mirrors those arguments into `Mcp-Param-<Name>`
 * headers. A client MUST leave out a tool whose declarations break the rules, so one malformed
 * tool cannot make calls fail at the server's header check. The rules, as the SDK applies them
 * when it lists tools itself (the gateway lists page by page, so the catalog applies them):
 * - only on properties reached through a chain of `properties` keys (not under items,
 *   combinators, conditionals, definitions …);
 * - a non-empty RFC 9110 token, unique regardless of case;
 * - only on `string`, `integer` or `boolean` properties (`number` is not allowed).
 */

const KEY = 'x-mcp-header';
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const PRIMITIVE = new Set(['string', 'integer', 'boolean']);
/** Subschema keywords outside the `properties` chain; an `x-mcp-header` under them is invalid. */
const UNREACHABLE = [
  'items',
  'prefixItems',
  'contains',
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'propertyNames',
  'patternProperties',
  'dependentSchemas',
  'oneOf',
  'anyOf',
  'allOf',
  'not',
  'if',
  'then',
  'else',
  '$defs',
  'definitions',
];
/** Of those, the ones whose value maps names to subschemas. */
const NAMED = new Set(['patternProperties', 'dependentSchemas', '$defs', 'definitions']);

/** Why the schema's `x-mcp-header` declarations are invalid, in words; null when they are fine (or absent). */
export function xMcpHeaderProblem(inputSchema: unknown): string | null {
  const seen = new Map<string, string>();
  const visit = (node: unknown, path: string[], reachable: boolean): string | null => {
    if (node === null || typeof node !== 'object') return null;
    const schema = node as Record<string, unknown>;
    const where = path.length > 0 ? `property "${path.join('.')}"` : 'the schema root';
    if (KEY in schema) {
      if (!reachable || path.length === 0) return `${where} has an x-mcp-header outside the chain of "properties"`;
      const name = schema[KEY];
      if (typeof name !== 'string' || name.length === 0) return `${where} has an empty or non-string x-mcp-header`;
      if (!TOKEN.test(name)) return `${where} has the x-mcp-header ${JSON.stringify(name)}, which is not a valid header name`;
      if (typeof schema.type !== 'string' || !PRIMITIVE.has(schema.type)) {
        return `${where} has an x-mcp-header but its type is ${JSON.stringify(schema.type ?? null)} (only string, integer or boolean)`;
      }
      const prior = seen.get(name.toLowerCase());
      if (prior !== undefined) return `the x-mcp-header "${name}" is declared twice (also as "${prior}")`;
      seen.set(name.toLowerCase(), name);
    }
    const properties = schema.properties;
    if (properties !== null && typeof properties === 'object') {
      for (const [key, child] of Object.entries(properties)) {
        const problem = visit(child, [...path, key], reachable);
        if (problem) return problem;
      }
    }
    for (const keyword of UNREACHABLE) {
      const sub = schema[keyword];
      if (sub === undefined) continue;
      const branches = Array.isArray(sub)
        ? sub
        : NAMED.has(keyword) && sub !== null && typeof sub === 'object'
          ? Object.values(sub)
          : [sub];
      for (const branch of branches) {
        const problem = visit(branch, [...path, `<${keyword}>`], false);
        if (problem) return problem;
      }
    }
    return null;
  };
  return visit(inputSchema, [], true);
}
