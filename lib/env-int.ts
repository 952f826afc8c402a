type Env = Record<string, string | undefined>;

/** A whole-number setting of at least 1 from the environment, or `fallback` when unset; anything else is refused by name. */
export function positiveIntFromEnv(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a whole number of at least 1 (got "${raw}").`);
  return value;
}
