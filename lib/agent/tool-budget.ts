import type Anthropic from '@anthropic-ai/sdk';

import { CONFIG_DEFAULTS, readConfig, type Config, type Env } from '@/lib/config';

import { estimateToolTokens } from './token-estimate';

/**
 * When the enabled tools are too many to send every step, and what is sent instead. Past the
 * budget the model gets `switchboard__search_tools` plus a few tools: those it found by searching
 * in this turn, then those used most recently in the conversation.
 *
 * It is a setting of the engine (`EngineDeps.toolSearch`), not a per-user quota of lib/limits.ts:
 * it protects the model's context and the prompt cache, the same for every person, and tests
 * and benchmarks set it without touching the environment. The app reads it from the environment
 * (`toolSearchSettingsFrom`).
 */
export interface ToolSearchSettings {
  /** More enabled tools than this: search instead (default 40). */
  maxTools: number;
  /** Enabled tool definitions estimated above this many tokens: search instead (default 10 000). */
  maxTokens: number;
  /** How many of the conversation's most recently called tools stay offered (default 10). */
  recentTools: number;
}

/**
 * `TOOL_SEARCH_MAX_TOOLS` (at least 2: the search tool and one tool it found must fit),
 * `TOOL_SEARCH_MAX_TOKENS`, `TOOL_SEARCH_RECENT_TOOLS`, from the configuration (lib/config).
 */
export function toolSearchSettingsFrom(env?: Env): ToolSearchSettings {
  return settingsOf(readConfig(env));
}

export const DEFAULT_TOOL_SEARCH: ToolSearchSettings = settingsOf(CONFIG_DEFAULTS);

function settingsOf(config: Config): ToolSearchSettings {
  return { maxTools: config.TOOL_SEARCH_MAX_TOOLS, maxTokens: config.TOOL_SEARCH_MAX_TOKENS, recentTools: config.TOOL_SEARCH_RECENT_TOOLS };
}

/** How many found or recently used tools are offered past the budget: the search tool takes one place. */
export function roomBesideSearch(settings: ToolSearchSettings): number {
  return Math.max(1, settings.maxTools - 1);
}

/** Does sending every enabled tool go past the budget? */
export function overToolBudget(tools: readonly Anthropic.Tool[], settings: ToolSearchSettings): boolean {
  return tools.length > settings.maxTools || estimateToolTokens(tools) > settings.maxTokens;
}

/** A tool by its identity (server id + the server's tool name), which survives renaming. */
export interface ToolKey {
  serverId: string;
  tool: string;
}

export const keyOf = (k: ToolKey) => `${k.serverId}/${k.tool}`;

/**
 * Which enabled tools to keep offered in search mode: found ones first (the newest search
 * first), then recently used ones, without repeats, at most `room`. Only tools still enabled
 * count, so a grant revoked since is never brought back.
 */
export function toolsToKeep(
  enabled: ReadonlySet<string>,
  found: readonly ToolKey[],
  recent: readonly ToolKey[],
  room: number,
): Set<string> {
  const keep = new Set<string>();
  for (const k of [...found, ...recent]) {
    if (keep.size >= room) break;
    const key = keyOf(k);
    if (enabled.has(key)) keep.add(key);
  }
  return keep;
}
