/**
 * The names a client sees for the person's tools and prompts. By default they are namespaced as
 * in the chat (`<server>__<tool>`), so two servers' `search` never meet. A profile may ask for the
 * servers' own names (`ownNames`, the Account page's "Use the tools' own names"): an agent or a
 * test suite written against one server's tool names then works unchanged through Switchboard. It
 * applies only while nothing clashes — every exposed item's own name distinct, and none taken by
 * one of Switchboard's own (`reserved`) — and otherwise every name stays namespaced, so one added
 * server never silently renames some tools and not others.
 */
export function clientNames<T>(
  items: readonly T[],
  names: { own: (item: T) => string; namespaced: (item: T) => string },
  opts: { ownNames?: boolean; reserved?: readonly string[] } = {},
): string[] {
  const namespaced = items.map(names.namespaced);
  if (!opts.ownNames) return namespaced;
  const own = items.map(names.own);
  const taken = new Set(opts.reserved ?? []);
  const clash = new Set(own).size !== own.length || own.some((n) => taken.has(n));
  return clash ? namespaced : own;
}
