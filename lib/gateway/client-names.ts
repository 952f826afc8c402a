/**
 * The names a client sees for the person's tools and prompts. By default they are namespaced as
 * in the chat (`<server>__<tool>`), so two servers' `search` never meet. A profile may ask for the
 * servers' own names (`ownNames`, the Account page's "Use the tools' own names"): an agent or a
 * test suite written against one server's tool names then works unchanged through Switchboard. It
 * applies only while nothing clashes — every exposed item's own name distinct, legal (`LEGAL_NAME`,
 * MCP's tool-name characters, and no `__`, which would read as a namespaced name), and none taken
 * by one of Switchboard's own (`SWITCHBOARD_NAMES`, plus `reserved`) — and otherwise every name
 * stays namespaced, so one added server never silently renames some tools and not others.
 */
export function clientNames<T>(
  items: readonly T[],
  names: { own: (item: T) => string; namespaced: (item: T) => string },
  opts: { ownNames?: boolean; reserved?: readonly string[] } = {},
): string[] {
  const namespaced = items.map(names.namespaced);
  if (!opts.ownNames) return namespaced;
  const own = items.map(names.own);
  const taken = new Set([...SWITCHBOARD_NAMES, ...(opts.reserved ?? [])]);
  const usable = own.every((n) => LEGAL_NAME.test(n) && !n.includes('__') && !taken.has(n)) && new Set(own).size === own.length;
  return usable ? own : namespaced;
}

/** The characters and length of a name a client is given under its own name (MCP's tool names). */
export const LEGAL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** Names of Switchboard's own tools on /mcp (the `ask` agent tool), which no server's item may take. */
export const SWITCHBOARD_NAMES: readonly string[] = ['switchboard_ask'];
