import { z } from 'zod';

/**
 * The kinds of value an environment variable can hold, as zod schemas. Each reads one raw value
 * (`undefined` when the variable is unset, empty or only spaces: `.env` files often hold `KEY=`,
 * and the e2e config blanks what it wants unset), gives the default when unset, and refuses
 * anything else with what is allowed. A refusal is written without the variable's name, which
 * `./index.ts` puts in front: "must be a whole number of at least 1 (got "2s")." becomes
 * "RUN_LEASE_MS must be a whole number of at least 1 (got "2s").".
 */

/** What the docs say about a variable; read by the README check (test/config-docs.test.ts). */
export interface About {
  /** What it does, in a sentence or two. */
  description: string;
  /** Set by the test suites only; honoured only in a test deployment (./index.ts says which). */
  testOnly?: true;
  /** Read when the app is built (next.config.mjs), not by the running app. */
  buildTime?: true;
}

export const about = z.registry<About>();

/** An unset, empty or blank value is unset; anything else is kept exactly as given. */
function present(raw: string | undefined): string | undefined {
  return raw === undefined || raw.trim() === '' ? undefined : raw;
}

/**
 * One variable: `read` gets the value (never blank) or undefined, and returns what the app uses
 * or a refusal. The one place a raw value becomes a setting.
 */
export function variable<T>(read: (value: string | undefined) => T | Refusal) {
  return z
    .string()
    .optional()
    .transform((raw, ctx): T => {
      const out = read(present(raw));
      if (out instanceof Refusal) {
        ctx.addIssue({ code: 'custom', message: out.message });
        return z.NEVER;
      }
      return out;
    });
}

export class Refusal {
  constructor(readonly message: string) {}
}

const refuse = (message: string) => new Refusal(message);

/** Text used as written (a secret, a token): only blank counts as unset. */
export function verbatim() {
  return variable((value) => value);
}

/** Text without its surrounding spaces, or `fallback` when unset. */
export function text(): ReturnType<typeof variable<string | undefined>>;
export function text(fallback: string): ReturnType<typeof variable<string>>;
export function text(fallback?: string) {
  return variable((value) => value?.trim() ?? fallback);
}

/**
 * A whole number from `min` (and at most `max`), or `fallback` when unset. `message` words the
 * refusal where the variable's own wording says more than the plain one (a unit, an example).
 */
export function wholeNumber(opts: { fallback: number; min: number; max?: number; message?: (got: string) => string }) {
  const { fallback, min, max } = opts;
  return variable((value) => {
    if (value === undefined) return fallback;
    const raw = value.trim();
    const n = Number(raw);
    if (!/^\d+$/.test(raw) || !Number.isSafeInteger(n) || n < min) {
      return refuse(opts.message?.(raw) ?? `must be a whole number of at least ${min} (got "${raw}").`);
    }
    if (max !== undefined && n > max) return refuse(opts.message?.(raw) ?? `must be at most ${max} (got ${n}).`);
    return n;
  });
}

/** One of `choices`, or `fallback` when unset. */
export function oneOf<const C extends readonly string[]>(choices: C, fallback: C[number]) {
  return variable((value) => {
    if (value === undefined) return fallback;
    const v = value.trim();
    return (choices as readonly string[]).includes(v) ? (v as C[number]) : refuse(`must be ${alternatives(choices)} (got "${v}").`);
  });
}

/** `"a" or "b"`, `"a", "b" or "c"`. */
function alternatives(choices: readonly string[]): string {
  const quoted = choices.map((c) => `"${c}"`);
  return quoted.length === 1 ? quoted[0]! : `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}`;
}

/** An absolute URL (kept as the text given, trimmed), or undefined when unset. */
export function url(opts: { schemes?: readonly string[]; example: string }) {
  return variable((value) => {
    if (value === undefined) return undefined;
    const v = value.trim();
    let parsed: URL | null = null;
    try {
      parsed = new URL(v);
    } catch {
      // refused below
    }
    if (!parsed || (opts.schemes && !opts.schemes.includes(parsed.protocol))) {
      return refuse(`must be a full URL such as ${opts.example} (got "${v}").`);
    }
    return v;
  });
}

/** A comma-separated list, its entries trimmed and blank ones dropped (empty when unset). */
export function list() {
  return variable((value) =>
    (value ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );
}

/** A JSON object whose values `entry` checks one by one (an empty object when unset). */
export function jsonObject<T>(example: string, entry: (key: string, value: unknown) => T | Refusal) {
  return variable((value): Record<string, T> | Refusal => {
    if (value === undefined) return {};
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch (err) {
      return refuse(`is not valid JSON: ${(err as Error).message}`);
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return refuse(`must be a JSON object such as ${example}.`);
    const out: Record<string, T> = {};
    for (const [key, v] of Object.entries(parsed)) {
      const checked = entry(key, v);
      if (checked instanceof Refusal) return checked;
      out[key] = checked;
    }
    return out;
  });
}

export { refuse };
