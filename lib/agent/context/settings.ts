import { CONFIG_DEFAULTS, readConfig, type Env } from '@/lib/config';

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

export const DEFAULT_CONTEXT_SETTINGS: ContextSettings = { margin: CONFIG_DEFAULTS.CONTEXT_WINDOW_MARGIN };

/** `CONTEXT_WINDOW_MARGIN` (a fraction from 0.01 to 0.5, such as 0.1), from the configuration. */
export function contextSettingsFrom(env?: Env): ContextSettings {
  return { margin: readConfig(env).CONTEXT_WINDOW_MARGIN };
}
