import { createHash } from 'node:crypto';
import { Ajv, type ErrorObject, type Options } from 'ajv';
import addFormats from 'ajv-formats';
import { Ajv2020 } from 'ajv/dist/2020.js';
import canonicalize from 'canonicalize';
import { RE2JS } from 're2js';

import { describeValidationError } from './schema-errors';

/**
 * JSON Schemas from remote MCP servers are untrusted input. Before one is compiled it must be
 * small and shallow; it is compiled with unknown keywords ignored, and every `pattern` runs on
 * RE2 (linear time), so a hostile `^(a+)+$` cannot stall the process. Compiled validators are
 * cached by schema hash because the same tools are validated on every step.
 */

export const SCHEMA_LIMITS = { maxBytes: 64 * 1024, maxDepth: 20, maxNodes: 20_000 };

/** An ajv validate function: `errors` holds the failure of the last call. */
export type SchemaValidate = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

export type SchemaCheck = { ok: true; validate: SchemaValidate } | { ok: false; reason: string };

export interface CheckOptions {
  /** Require `type: "object"` at the root (MCP tool input schemas). Off for fragments/output. */
  requireObject?: boolean;
  /**
   * The validator fills a missing property from its `default` (ajv `useDefaults`), writing into
   * the value it checks: only for `withInputDefaults`, which hands it a copy.
   */
  fillDefaults?: boolean;
}

/** RE2 in place of `new RegExp`: ajv only calls `.test`. */
const re2RegExp = Object.assign(
  (pattern: string) => {
    const re = RE2JS.compile(pattern);
    return { test: (s: string) => re.test(s), toString: () => pattern };
  },
  { code: 're2js' },
);

function makeAjv<T extends Ajv>(Ctor: new (opts: Options) => T, useDefaults: boolean): T {
  const ajv = new Ctor({
    // Each default is written into the generated code as a literal: every fill is a fresh copy.
    useDefaults,
    strict: false,
    allErrors: false,
    verbose: true, // errors carry the failing (parent) schema, to say what is allowed
    logger: false,
    addUsedSchema: false, // two servers may reuse one $id; never register them globally
    ownProperties: true,
    code: { regExp: re2RegExp },
  });
  // 'fast' formats: simpler regexes over data the model wrote.
  addFormats(ajv, { mode: 'fast' });
  return ajv;
}

type Engines = { draft7: Ajv; draft2020: Ajv };
const enginesByFill = new Map<boolean, Engines>();
const cache = new Map<string, SchemaCheck>();
const CACHE_MAX = 1000;

function enginesFor(fillDefaults: boolean): Engines {
  let found = enginesByFill.get(fillDefaults);
  if (!found) {
    found = { draft7: makeAjv(Ajv, fillDefaults), draft2020: makeAjv(Ajv2020, fillDefaults) };
    enginesByFill.set(fillDefaults, found);
  }
  return found;
}

function pickEngine(schema: Record<string, unknown>, engines: Engines): { ajv: Ajv; schema: Record<string, unknown> } | string {
  const declared = schema.$schema;
  if (declared === undefined) return { ajv: engines.draft2020, schema }; // MCP's default dialect
  if (typeof declared !== 'string') return 'its $schema is not a string';
  const rest = { ...schema };
  delete rest.$schema;
  if (/json-schema\.org\/draft\/2020-12\/schema/.test(declared)) return { ajv: engines.draft2020, schema };
  if (/json-schema\.org\/draft-07\/schema/.test(declared)) return { ajv: engines.draft7, schema };
  // Older and 2019-09 dialects: close enough to validate with the nearest engine; a keyword that
  // changed meaning makes compilation fail, which is reported below.
  if (/json-schema\.org\/draft\/2019-09\//.test(declared)) return { ajv: engines.draft2020, schema: rest };
  if (/json-schema\.org\/draft-0[46]\//.test(declared)) return { ajv: engines.draft7, schema: rest };
  return `its $schema "${declared.slice(0, 100)}" is not a supported dialect (draft-07 or 2020-12)`;
}

/** Walks the value without recursion, stopping as soon as a limit is crossed. */
function shapeProblem(schema: unknown): string | null {
  const stack: [unknown, number][] = [[schema, 1]];
  let nodes = 0;
  while (stack.length) {
    const [value, depth] = stack.pop()!;
    if (value === null || typeof value !== 'object') continue;
    if (depth > SCHEMA_LIMITS.maxDepth) return `it is nested deeper than ${SCHEMA_LIMITS.maxDepth} levels`;
    if (++nodes > SCHEMA_LIMITS.maxNodes) return `it has more than ${SCHEMA_LIMITS.maxNodes} nodes`;
    for (const child of Object.values(value)) stack.push([child, depth + 1]);
  }
  return null;
}

export function checkToolSchema(schema: unknown, opts: CheckOptions = {}): SchemaCheck {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) {
    return { ok: false, reason: 'the schema is not a JSON object' };
  }
  const shape = shapeProblem(schema);
  if (shape) return { ok: false, reason: `the schema is too complex: ${shape}` };
  const json = JSON.stringify(schema);
  const bytes = Buffer.byteLength(json);
  if (bytes > SCHEMA_LIMITS.maxBytes) {
    return {
      ok: false,
      reason: `the schema is too large (${Math.round(bytes / 1024)} KB; the limit is ${SCHEMA_LIMITS.maxBytes / 1024} KB)`,
    };
  }
  const root = schema as Record<string, unknown>;
  if (opts.requireObject && root.type !== 'object') {
    return { ok: false, reason: `the schema's root must have "type": "object" (found ${JSON.stringify(root.type ?? null)})` };
  }

  const fill = opts.fillDefaults === true;
  const key = `${fill ? 'fill' : 'check'}:${createHash('sha256')
    .update(canonicalize(schema) ?? json)
    .digest('hex')}`;
  const hit = cache.get(key);
  if (hit) {
    cache.delete(key); // refresh its place: least recently used goes first
    cache.set(key, hit);
    return hit;
  }
  const result = compile(root, enginesFor(fill));
  cache.set(key, result);
  if (cache.size > CACHE_MAX) cache.delete(cache.keys().next().value!);
  return result;
}

function compile(schema: Record<string, unknown>, engines: Engines): SchemaCheck {
  const engine = pickEngine(schema, engines);
  if (typeof engine === 'string') return { ok: false, reason: `the schema cannot be used: ${engine}` };
  try {
    const validate = engine.ajv.compile(engine.schema);
    // Compiled functions stay valid; dropping the schema keeps ajv's own cache from growing.
    engine.ajv.removeSchema(engine.schema);
    return { ok: true, validate: validate as SchemaValidate };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const hint = /RE2JS|regex|pattern|Syntax/i.test(message) ? ' (patterns must use RE2 syntax: no look-around or back-references)' : '';
    return { ok: false, reason: `the schema does not compile: ${message.slice(0, 300)}${hint}` };
  }
}

/** Validates a value against a checked schema: null when valid, else one sentence about the first problem. */
export function validationProblem(check: SchemaCheck, input: unknown): string | null {
  if (!check.ok) return `The schema cannot be used: ${check.reason}.`;
  return check.validate(input) ? null : describeValidationError(check.validate.errors ?? [], input);
}

/**
 * Validates a value against a schema from a server or a person (a tool's input schema, a grant's
 * constraint, an elicitation form): null when valid or when there is no schema, else one
 * sentence naming the field, the value received and what is allowed.
 */
export function inputProblem(schema: Record<string, unknown> | null | undefined, input: unknown): string | null {
  return schema ? validationProblem(checkToolSchema(schema), input) : null;
}

/** A tool input checked against its schema, with the schema's defaults filled in. */
export interface FilledInput {
  /** The input with defaults filled (a new object); the input as given when it is invalid. */
  input: Record<string, unknown>;
  /** Null when valid, else one sentence naming the field (as `inputProblem`). */
  problem: string | null;
}

/**
 * Checks a tool input the way the server will take it: a property the input leaves out and the
 * schema gives a `default` is filled in first, so a field that is both required and defaulted
 * (zod's JSON Schema output makes every defaulted field required) is not refused. The caller's
 * object is never written to: the fill happens on a JSON copy (ajv writes each default as a fresh
 * literal, so nothing is shared with the schema either). Grant constraints and other fragments
 * are checked with `inputProblem`, which fills nothing.
 */
export function withInputDefaults(schema: Record<string, unknown> | null | undefined, input: Record<string, unknown>): FilledInput {
  if (!schema) return { input, problem: null };
  const check = checkToolSchema(schema, { fillDefaults: true });
  const copy = JSON.parse(JSON.stringify(input)) as Record<string, unknown>;
  const problem = validationProblem(check, copy);
  return problem === null ? { input: copy, problem: null } : { input, problem };
}

export { describeValidationError };
