// A grant's argument constraint: a JSON Schema fragment the call's input must also satisfy
// (checked by lib/mcp/schema-guard.ts `inputProblem`, on RE2). A person picks one of three forms
// for one argument; nothing else is accepted from a request, so what the panel shows in words is
// exactly what is enforced. Pure and free of Node and React: the server, the Tools panel and the
// approval card all use it.

type Scalar = string | number | boolean;

/** The three forms a person can pick, each about one top-level argument of the tool. */
export type ConstraintChoice =
  | { kind: 'exact'; field: string; value: Scalar }
  | { kind: 'one_of'; field: string; values: Scalar[] }
  | { kind: 'path_prefix'; field: string; prefix: string };

export type ConstraintKind = ConstraintChoice['kind'];

export type Constraint = Record<string, unknown>;

export type ConstraintProblem = { field: string; message: string };

/** Bounds that keep a fragment small enough to read in the panel and cheap to check. */
export const CONSTRAINT_LIMITS = { maxFieldName: 200, maxString: 1000, maxValues: 50 } as const;

const ALLOWED =
  'A constraint is one of three forms about one argument: an exact value, one of a list of values, ' +
  'or a path prefix (a text argument that is the prefix or lies under it, with no "..").';

/**
 * Spellings a path prefix cannot judge: an encoded dot, slash, backslash or percent sign would be
 * read as a separator (or as another escape) by the server after the prefix was compared, and a
 * backslash is a separator on some systems. Values and prefixes containing one are refused.
 */
const UNJUDGEABLE = /%(2e|2f|5c|25)|\\/i;
const UNJUDGEABLE_WHY = 'an encoded dot, slash, backslash or percent sign (%2e, %2f, %5c, %25) or a backslash';

// RE2 has no look-ahead, so "no .." is a second pattern under `not`.
const NO_DOT_DOT = '\\.\\.';

/** The prefix as a literal: every RE2 metacharacter escaped. */
export function escapeForPattern(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');
}

/** Why this choice cannot become a constraint, or null. The field of the problem is the choice's part. */
export function choiceProblem(choice: ConstraintChoice): ConstraintProblem | null {
  const field = choice.field;
  if (typeof field !== 'string' || field.trim() === '' || field.length > CONSTRAINT_LIMITS.maxFieldName)
    return { field: 'field', message: `Name the argument the constraint is about (1 to ${CONSTRAINT_LIMITS.maxFieldName} characters).` };
  if (field === '__proto__') return { field: 'field', message: 'This argument name cannot be constrained.' };
  const scalar = (v: unknown, where: string): ConstraintProblem | null => {
    if (typeof v === 'string') {
      return v.length > CONSTRAINT_LIMITS.maxString
        ? { field: where, message: `A value is at most ${CONSTRAINT_LIMITS.maxString} characters long.` }
        : null;
    }
    if (typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v))) return null;
    return { field: where, message: 'A value is text, a number, or true / false.' };
  };
  switch (choice.kind) {
    case 'exact':
      return scalar(choice.value, 'value');
    case 'one_of': {
      const values = choice.values;
      if (!Array.isArray(values) || values.length === 0 || values.length > CONSTRAINT_LIMITS.maxValues)
        return { field: 'values', message: `List 1 to ${CONSTRAINT_LIMITS.maxValues} values.` };
      for (const v of values) {
        const p = scalar(v, 'values');
        if (p) return p;
      }
      const keys = values.map((v) => JSON.stringify(v));
      if (new Set(keys).size !== keys.length) return { field: 'values', message: 'Each value is listed once.' };
      return null;
    }
    case 'path_prefix': {
      const prefix = choice.prefix;
      if (typeof prefix !== 'string' || prefix === '')
        return { field: 'prefix', message: 'Enter the prefix the argument must start with, such as /notes/.' };
      if (prefix.length > CONSTRAINT_LIMITS.maxString)
        return { field: 'prefix', message: `The prefix is at most ${CONSTRAINT_LIMITS.maxString} characters long.` };
      if (prefix.includes('..'))
        return { field: 'prefix', message: 'A path prefix may not contain "..": it could climb out of the folder it names.' };
      if (UNJUDGEABLE.test(prefix))
        return { field: 'prefix', message: `A path prefix may not contain ${UNJUDGEABLE_WHY}: write the path plainly.` };
      return null;
    }
    default:
      return { field: 'kind', message: ALLOWED };
  }
}

/** The JSON Schema fragment for a choice (check it first with `choiceProblem`; this throws on a bad one). */
export function constraintFor(choice: ConstraintChoice): Constraint {
  const problem = choiceProblem(choice);
  if (problem) throw new Error(`Invalid constraint (${problem.field}): ${problem.message}`);
  const property =
    choice.kind === 'exact'
      ? { const: choice.value }
      : choice.kind === 'one_of'
        ? { enum: [...choice.values] }
        : { type: 'string', pattern: `^${escapeForPattern(choice.prefix)}`, not: { pattern: NO_DOT_DOT } };
  // A computed key defines an own property, whatever the argument is called.
  return { type: 'object', required: [choice.field], properties: { [choice.field]: property } };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Undoes `escapeForPattern`: the literal prefix, or null when the pattern is not an escaped literal. */
function unescapePrefix(pattern: string): string | null {
  if (!pattern.startsWith('^')) return null;
  let out = '';
  for (let i = 1; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\') {
      const next = pattern[i + 1];
      if (next === undefined || !/[\\^$.*+?()[\]{}|]/.test(next)) return null;
      out += next;
      i++;
    } else if (/[\\^$.*+?()[\]{}|]/.test(c)) {
      return null;
    } else {
      out += c;
    }
  }
  return out;
}

/** The choice a fragment was built from, or null when it is not exactly one of the three forms. */
export function choiceOf(fragment: unknown): ConstraintChoice | null {
  if (!isRecord(fragment) || !isRecord(fragment.properties)) return null;
  const fields = Object.keys(fragment.properties);
  if (fields.length !== 1) return null;
  const field = fields[0]!;
  const property = fragment.properties[field];
  if (!isRecord(property)) return null;
  let choice: ConstraintChoice | null = null;
  if ('const' in property) choice = { kind: 'exact', field, value: property.const as Scalar };
  else if (Array.isArray(property.enum)) choice = { kind: 'one_of', field, values: property.enum as Scalar[] };
  else if (typeof property.pattern === 'string') {
    const prefix = unescapePrefix(property.pattern);
    if (prefix !== null) choice = { kind: 'path_prefix', field, prefix };
  }
  if (!choice || choiceProblem(choice)) return null;
  // Exactly the fragment this choice builds, nothing more (no extra keyword that would change its meaning).
  return sameJson(constraintFor(choice), fragment) ? choice : null;
}

/** The argument and literal prefix of a stored path-prefix fragment, however old, or null. */
function pathPrefixOf(fragment: unknown): { field: string; prefix: string } | null {
  if (!isRecord(fragment) || !isRecord(fragment.properties)) return null;
  const fields = Object.keys(fragment.properties);
  if (fields.length !== 1) return null;
  const property = fragment.properties[fields[0]!];
  if (!isRecord(property) || typeof property.pattern !== 'string') return null;
  const prefix = unescapePrefix(property.pattern);
  return prefix === null ? null : { field: fields[0]!, prefix };
}

/** Removes "." and ".." segments (RFC 3986, 5.2.4) as a server resolving the path would; never above the root. */
export function withoutDotSegments(path: string): string {
  const segments = path.split('/');
  const out: string[] = [];
  segments.forEach((segment, i) => {
    const last = i === segments.length - 1;
    if (segment !== '.' && segment !== '..') {
      out.push(segment);
      return;
    }
    if (segment === '..' && out.length > 0 && !(out.length === 1 && out[0] === '')) out.pop();
    if (last) out.push(''); // "/a/." names the folder "/a/"
  });
  return out.join('/');
}

/** The path as a server would resolve it: dot segments removed (in a URL, from its path only). */
function resolvedPath(value: string): string {
  const origin = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(value)?.[0];
  if (origin === undefined) return withoutDotSegments(value);
  const rest = value.slice(origin.length);
  const cut = rest.search(/[?#]/);
  return cut < 0 ? origin + withoutDotSegments(rest) : origin + withoutDotSegments(rest.slice(0, cut)) + rest.slice(cut);
}

/** A prefix has a trailing separator: "/notes" is "/notes" itself or under "/notes/", never "/notes-private". */
function isUnder(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`);
}

function underWords(prefix: string): string {
  return prefix.endsWith('/') ? `under ${prefix}` : `${prefix} or under ${prefix}/`;
}

/**
 * Why a call's input is outside a path-prefix constraint once its value is read the way a server
 * would read it, or null (also for any other form, which the schema guard alone decides). The
 * stored fragment's pattern compares the text as written; here the value is refused if it holds
 * an encoded dot, slash, backslash or percent sign or a backslash, decoded once, its dot segments
 * resolved, and compared with the prefix plus a separator.
 */
export function pathPrefixProblem(fragment: unknown, input: unknown): string | null {
  const form = pathPrefixOf(fragment);
  if (!form || !isRecord(input)) return null;
  const value = input[form.field];
  if (typeof value !== 'string') return null; // the schema guard says what is wrong with it
  const shown = JSON.stringify(value.length > 200 ? `${value.slice(0, 200)}…` : value);
  if (UNJUDGEABLE.test(value)) return `${form.field}: ${shown} contains ${UNJUDGEABLE_WHY}, which a path limited to a prefix may not hold.`;
  let decoded: string;
  try {
    decoded = decodeURIComponent(value);
  } catch {
    return `${form.field}: ${shown} has a "%" that is not a valid escape; a path limited to a prefix is written plainly.`;
  }
  return isUnder(resolvedPath(decoded), form.prefix) ? null : `${form.field}: ${shown} is not ${underWords(form.prefix)}.`;
}

function sameJson(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameJson(x, b[i]));
  }
  if (isRecord(a) && isRecord(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && sameJson(a[k], b[k]));
  }
  return Object.is(a, b) || (typeof a === 'number' && a === b);
}

/**
 * What is wrong with a constraint sent by a request, or null when it is one of the three forms.
 * `field` is the request field (`constraint`, or `constraint.properties.<arg>`). With the tool's
 * input schema, the argument must be one the tool declares, and a path prefix a text argument.
 */
export function constraintProblem(fragment: unknown, inputSchema?: Record<string, unknown> | null): ConstraintProblem | null {
  if (!isRecord(fragment)) return { field: 'constraint', message: `The constraint must be a JSON object. ${ALLOWED}` };
  if (!isRecord(fragment.properties) || Object.keys(fragment.properties).length !== 1)
    return { field: 'constraint.properties', message: `The constraint must name exactly one argument under "properties". ${ALLOWED}` };
  const arg = Object.keys(fragment.properties)[0]!;
  const at = `constraint.properties.${arg}`;
  const property = fragment.properties[arg];
  if (isRecord(property) && typeof property.pattern === 'string') {
    const prefix = unescapePrefix(property.pattern);
    if (prefix?.includes('..'))
      return { field: at, message: 'A path prefix may not contain "..": it could climb out of the folder it names.' };
    if (prefix === null)
      return {
        field: at,
        message: `Only a literal prefix is accepted as a pattern (escaped, after "^"), not a regular expression. ${ALLOWED}`,
      };
  }
  const choice = choiceOf(fragment);
  if (!choice) {
    const built = isRecord(property) ? guessProblem(arg, property) : null;
    const what = built
      ? built.message
      : 'It must be exactly the fragment the Tools panel builds: "type": "object", the argument "required", ' +
        'and one of "const", "enum" or a prefix "pattern" with "not" "..".';
    return { field: built ? `${at}.${built.field}` : at, message: `${what} ${ALLOWED}` };
  }
  const declared = isRecord(inputSchema) && isRecord(inputSchema.properties) ? inputSchema.properties : null;
  if (declared) {
    if (!Object.hasOwn(declared, choice.field)) {
      const names = Object.keys(declared).map((n) => `"${n}"`);
      const has = names.length ? `its arguments are ${names.join(', ')}` : 'it takes no arguments';
      return { field: at, message: `The tool has no argument "${choice.field}"; ${has}.` };
    }
    const type = isRecord(declared[choice.field]) ? (declared[choice.field] as Record<string, unknown>).type : undefined;
    if (choice.kind === 'path_prefix' && type !== undefined && type !== 'string' && !(Array.isArray(type) && type.includes('string')))
      return { field: at, message: `A path prefix applies to a text argument; "${choice.field}" is ${JSON.stringify(type)}.` };
  }
  return null;
}

/** For a fragment that is almost a known form, the specific part that is wrong. */
function guessProblem(field: string, property: Record<string, unknown>): ConstraintProblem | null {
  if ('const' in property) return choiceProblem({ kind: 'exact', field, value: property.const as Scalar });
  if ('enum' in property) return choiceProblem({ kind: 'one_of', field, values: property.enum as Scalar[] });
  return null;
}

function quote(v: Scalar): string {
  return typeof v === 'string' ? `“${v}”` : String(v);
}

/** The constraint in words, for the panel and the card: "path starts with /notes/ (no ..)". */
export function describeConstraint(fragment: unknown): string {
  const choice = choiceOf(fragment);
  if (!choice) return 'a rule on the arguments that Switchboard cannot put in words';
  return describeChoice(choice);
}

export function describeChoice(choice: ConstraintChoice): string {
  switch (choice.kind) {
    case 'exact':
      return `${choice.field} is ${quote(choice.value)}`;
    case 'one_of':
      return choice.values.length === 1
        ? `${choice.field} is ${quote(choice.values[0]!)}`
        : `${choice.field} is one of ${choice.values.map(quote).join(', ')}`;
    case 'path_prefix':
      return choice.prefix.endsWith('/')
        ? `${choice.field} starts with ${choice.prefix} (no ..)`
        : `${choice.field} is ${choice.prefix} or starts with ${choice.prefix}/ (no ..)`;
  }
}

export type ConstraintSuggestion = {
  choice: ConstraintChoice;
  constraint: Constraint;
  /** For the card: "only this path prefix: /notes/projects/". */
  label: string;
};

const PATH_NAME = /path|file|dir|folder|url|uri|location/i;
const MAX_SUGGESTED_EXACT = 200;

/** The folder part of a path-like value ("/notes/projects/a.md" → "/notes/projects/"), or null. */
export function folderOf(value: string): string | null {
  if (value.includes('..') || value.length > CONSTRAINT_LIMITS.maxString) return null;
  const cut = value.lastIndexOf('/');
  const origin = /^[a-z][a-z0-9+.-]*:\/\/[^/]+/i.exec(value)?.[0];
  // A URL's prefix is at least its origin and a slash; a bare "/" is no constraint at all.
  if (cut < 0 || (origin && cut < origin.length)) return null;
  const folder = value.slice(0, cut + 1);
  return folder.length >= 2 ? folder : null;
}

function looksLikePath(name: string, value: string, schema: Record<string, unknown> | undefined): boolean {
  if (schema && (schema.format === 'uri' || schema.format === 'uri-reference')) return true;
  if (PATH_NAME.test(name)) return value.includes('/');
  return /^(\/|~\/|\.\/|[a-z][a-z0-9+.-]*:\/\/)/i.test(value) && value.includes('/');
}

/**
 * Constraints a person may pick from one call's arguments: a path-like argument's folder as a
 * prefix first (the useful one), then the exact value of each short scalar argument. Only
 * top-level arguments the tool declares (when its schema lists them).
 */
export function suggestConstraints(input: unknown, inputSchema?: Record<string, unknown> | null): ConstraintSuggestion[] {
  if (!isRecord(input)) return [];
  const declared = isRecord(inputSchema) && isRecord(inputSchema.properties) ? inputSchema.properties : null;
  const prefixes: ConstraintSuggestion[] = [];
  const exacts: ConstraintSuggestion[] = [];
  for (const [field, value] of Object.entries(input)) {
    if (declared && !Object.hasOwn(declared, field)) continue;
    const schema = declared && isRecord(declared[field]) ? (declared[field] as Record<string, unknown>) : undefined;
    if (typeof value === 'string' && looksLikePath(field, value, schema)) {
      const prefix = folderOf(value);
      const choice: ConstraintChoice | null = prefix ? { kind: 'path_prefix', field, prefix } : null;
      if (choice && !choiceProblem(choice))
        prefixes.push({ choice, constraint: constraintFor(choice), label: `only ${field} under ${prefix} (no ..)` });
    }
    const short = typeof value === 'string' ? value.length > 0 && value.length <= MAX_SUGGESTED_EXACT : true;
    if (['string', 'number', 'boolean'].includes(typeof value) && short) {
      const choice: ConstraintChoice = { kind: 'exact', field, value: value as Scalar };
      if (!choiceProblem(choice))
        exacts.push({ choice, constraint: constraintFor(choice), label: `only when ${field} is ${quote(value as Scalar)}` });
    }
  }
  return [...prefixes, ...exacts];
}
