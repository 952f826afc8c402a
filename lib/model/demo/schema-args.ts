import type { JsonSchema } from './types';

// Builds plausible tool arguments from a tool's `input_schema`, so the demo
// model can call a tool the user only named. Only `required` properties get a
// value: that is the smallest input a schema-validating server accepts, and it
// keeps the demo's calls predictable for tests.
//
// Order of preference for one value (the spec hosts rely on):
//   `default` → first `enum` value → `const` → by type:
//   string → `examples[0]` if it is a string, else "example";
//   number/integer → `minimum` (or just above `exclusiveMinimum`), else 1;
//   boolean → false; array → []; object → its required properties; null → null.

/** Deep enough for real tool schemas, shallow enough to stop self-referencing `$ref`s. */
const MAX_DEPTH = 8;

export function argsFromSchema(schema: JsonSchema | undefined): Record<string, unknown> {
  if (!isSchema(schema)) return {};
  const value = valueFor(schema, schema, 0);
  return isPlainObject(value) ? value : {};
}

function valueFor(schema: JsonSchema, root: JsonSchema, depth: number): unknown {
  if (depth > MAX_DEPTH) return null;
  const resolved = resolveRef(schema, root);
  if (!resolved) return null;
  schema = resolved;

  if ('default' in schema) return schema.default;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if ('const' in schema) return schema.const;

  // Unions: the first alternative is as good as any and keeps output stable.
  const alternative = schema.anyOf?.[0] ?? schema.oneOf?.[0];
  if (!schema.type && isSchema(alternative)) return valueFor(alternative, root, depth + 1);
  if (!schema.type && Array.isArray(schema.allOf)) return valueFor(mergeAllOf(schema), root, depth + 1);

  switch (primaryType(schema)) {
    case 'string':
      return typeof schema.examples?.[0] === 'string' ? schema.examples[0] : 'example';
    case 'number':
    case 'integer':
      return numberFor(schema);
    case 'boolean':
      return false;
    case 'array':
      return [];
    case 'object':
      return objectFor(schema, root, depth);
    case 'null':
      return null;
    default:
      // A schema without a type accepts anything; a string is the most
      // readable "anything" in a chat transcript.
      return 'example';
  }
}

function objectFor(schema: JsonSchema, root: JsonSchema, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const properties = isPlainObject(schema.properties) ? schema.properties : {};
  for (const name of Array.isArray(schema.required) ? schema.required : []) {
    const property = properties[name];
    out[name] = isSchema(property) ? valueFor(property, root, depth + 1) : 'example';
  }
  return out;
}

function numberFor(schema: JsonSchema): number {
  if (typeof schema.minimum === 'number') return schema.minimum;
  if (typeof schema.exclusiveMinimum === 'number') {
    return schema.type === 'integer' ? Math.floor(schema.exclusiveMinimum) + 1 : schema.exclusiveMinimum + 1;
  }
  // Respect an upper bound below the usual answer rather than send an invalid 1.
  if (typeof schema.maximum === 'number' && schema.maximum < 1) return schema.maximum;
  return 1;
}

/** The type to produce: the first non-null of a type list, or inferred from shape. */
function primaryType(schema: JsonSchema): string | undefined {
  if (Array.isArray(schema.type)) return schema.type.find((t) => t !== 'null') ?? schema.type[0];
  if (typeof schema.type === 'string') return schema.type;
  if (schema.properties || schema.required) return 'object';
  if (schema.items) return 'array';
  return undefined;
}

/** Resolves local `$ref`s (`#/$defs/X`, `#/definitions/X`), the kind MCP servers emit. */
function resolveRef(schema: JsonSchema, root: JsonSchema): JsonSchema | null {
  if (typeof schema.$ref !== 'string') return schema;
  if (schema.$ref === '#') return root;
  if (!schema.$ref.startsWith('#/')) return null;
  let node: unknown = root;
  for (const raw of schema.$ref.slice(2).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    node = isPlainObject(node) ? node[key] : undefined;
  }
  return isSchema(node) ? node : null;
}

function mergeAllOf(schema: JsonSchema): JsonSchema {
  const merged: JsonSchema = { type: 'object', properties: {}, required: [] };
  for (const part of schema.allOf ?? []) {
    if (!isSchema(part)) continue;
    Object.assign(merged.properties!, part.properties ?? {});
    merged.required!.push(...(part.required ?? []));
    if (part.type) merged.type = part.type;
  }
  return merged;
}

function isSchema(value: unknown): value is JsonSchema {
  return isPlainObject(value);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
