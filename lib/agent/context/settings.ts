/**
 * How close to the model's window a conversation's history may come before Switchboard makes
 * room (./fit.ts). An engine setting, like the tool-search budget: it protects every
 * conversation the same way, and tests set it without touching the environment.
 */
export interface ContextSettings {
  /**
   * The share of the room for input (the window less the answer's `max_tokens`) kept free: the
   * estimate is only an estimate, and a step's own additions must fit. From 0.01 to 0.5.
   */
  margin: number;
}

export const DEFAULT_CONTEXT_SETTINGS: ContextSettings = { margin: 0.1 };

const MARGIN = { min: 0.01, max: 0.5 } as const;

/** `CONTEXT_WINDOW_MARGIN` (a fraction such as 0.1); anything else is refused with the variable's name. */
export function contextSettingsFrom(env: Record<string, string | undefined>): ContextSettings {
  const raw = env.CONTEXT_WINDOW_MARGIN?.trim();
  if (!raw) return { ...DEFAULT_CONTEXT_SETTINGS };
  const margin = Number(raw);
  if (!/^\d*\.?\d+$/.test(raw) || margin < MARGIN.min || margin > MARGIN.max) {
    throw new Error(`CONTEXT_WINDOW_MARGIN must be a fraction from ${MARGIN.min} to ${MARGIN.max} (such as 0.1), got "${raw}".`);
  }
  return { margin };
}
