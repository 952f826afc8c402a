import type { ErrorObject } from 'ajv';

/**
 * Turns an ajv failure into one sentence a model can act on without another round trip: which
 * field, what it received, and what the schema allows.
 */

const MAX_VALUE = 80;
const MAX_LIST = 10;

/** JSON pointer → `items[0].name` (the form models write back most reliably). */
export function pointerToPath(pointer: string): string {
  if (!pointer) return '';
  return pointer
    .split('/')
    .slice(1)
    .map((seg) => seg.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((path, seg) => {
      if (/^\d+$/.test(seg)) return `${path}[${seg}]`;
      if (/^[A-Za-z_$][\w$]*$/.test(seg)) return path ? `${path}.${seg}` : seg;
      return `${path}[${JSON.stringify(seg)}]`;
    }, '');
}

/** A received value, short enough to quote back in an error (a long string is described, not echoed). */
export function preview(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'string' && value.length > MAX_VALUE) return `a string of ${value.length} characters`;
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > MAX_VALUE ? `${text.slice(0, MAX_VALUE)}…` : text;
}

function valueAt(root: unknown, pointer: string): unknown {
  let cur = root;
  for (const seg of pointer.split('/').slice(1)) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[seg.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return cur;
}

function list(values: unknown[]): string {
  const shown = values.slice(0, MAX_LIST).map(preview).join(', ');
  return values.length > MAX_LIST ? `${shown}, … (${values.length} in all)` : shown;
}

function field(pointer: string): string {
  const path = pointerToPath(pointer);
  return path ? `Field "${path}"` : 'The input';
}

/** Errors from combinators say little; the deepest specific error says most. */
function pick(errors: ErrorObject[]): ErrorObject | undefined {
  const specific = errors.filter((e) => !['anyOf', 'oneOf', 'allOf', 'if', 'not', '$ref'].includes(e.keyword));
  const pool = specific.length ? specific : errors;
  return [...pool].sort((a, b) => b.instancePath.split('/').length - a.instancePath.split('/').length)[0];
}

function allowedProperties(parentSchema: unknown): string {
  const props = (parentSchema as { properties?: Record<string, unknown> } | undefined)?.properties;
  const names = props ? Object.keys(props) : [];
  return names.length ? `allowed properties are ${list(names)}` : 'no other properties are allowed';
}

export function describeValidationError(errors: ErrorObject[], input: unknown): string {
  const e = pick(errors);
  if (!e) return 'The input does not match the tool’s schema.';
  const p = e.params as Record<string, unknown>;
  const got = preview(valueAt(input, e.instancePath));
  const at = field(e.instancePath);
  switch (e.keyword) {
    case 'required': {
      const child = `${e.instancePath}/${String(p.missingProperty).replace(/~/g, '~0').replace(/\//g, '~1')}`;
      return `${field(child)} is required but was not provided.`;
    }
    case 'dependentRequired':
    case 'dependencies':
      return `${at} must also include "${String(p.missingProperty)}" when "${String(p.property)}" is present.`;
    case 'additionalProperties':
    case 'unevaluatedProperties': {
      const extra = String(p.additionalProperty ?? p.unevaluatedProperty);
      return `${at} has an unexpected property "${extra}"; ${allowedProperties(e.parentSchema)}.`;
    }
    case 'type':
      return `${at} must be of type ${Array.isArray(p.type) ? p.type.join(' or ') : String(p.type)}; received ${got}.`;
    case 'enum':
      return `${at} must be one of ${list((p.allowedValues as unknown[]) ?? [])}; received ${got}.`;
    case 'const':
      return `${at} must equal ${preview(p.allowedValue)}; received ${got}.`;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return `${at} must be ${String(p.comparison)} ${String(p.limit)}; received ${got}.`;
    case 'multipleOf':
      return `${at} must be a multiple of ${String(p.multipleOf)}; received ${got}.`;
    case 'minLength':
      return `${at} must be at least ${String(p.limit)} characters long; received ${got}.`;
    case 'maxLength':
      return `${at} must be at most ${String(p.limit)} characters long; received ${got}.`;
    case 'minItems':
      return `${at} must have at least ${String(p.limit)} items; received ${got}.`;
    case 'maxItems':
      return `${at} must have at most ${String(p.limit)} items; received ${got}.`;
    case 'minProperties':
    case 'maxProperties':
      return `${at} must have ${e.keyword === 'minProperties' ? 'at least' : 'at most'} ${String(p.limit)} properties; received ${got}.`;
    case 'uniqueItems':
      return `${at} must not contain duplicates (items ${String(p.j)} and ${String(p.i)} are equal); received ${got}.`;
    case 'pattern':
      return `${at} must match the pattern ${preview(p.pattern)}; received ${got}.`;
    case 'format':
      return `${at} must be a valid ${String(p.format)}; received ${got}.`;
    case 'propertyNames':
      return `${at} has a property name that is not allowed: ${preview(p.propertyName)}.`;
    case 'anyOf':
    case 'oneOf':
      return `${at} must match ${e.keyword === 'oneOf' ? 'exactly one' : 'at least one'} of the allowed shapes; received ${got}.`;
    case 'not':
      return `${at} must not match the excluded shape; received ${got}.`;
    case 'contains':
      return `${at} must contain at least ${String(p.minContains ?? 1)} matching item(s); received ${got}.`;
    case 'false schema':
      return `${at} is not allowed; received ${got}.`;
    default:
      return `${at} ${e.message ?? 'is invalid'}; received ${got}.`;
  }
}
