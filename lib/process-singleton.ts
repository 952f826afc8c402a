/**
 * One value per process, whatever bundle asks. Next.js may load a module once per route bundle
 * (pages and route handlers live in different module graphs); a database handle or a registry
 * of running work must still exist once, so it lives on globalThis under a fixed key.
 */
export function processSingleton<T>(key: string, create: () => T): T {
  const store = globalThis as unknown as Record<symbol, T | undefined>;
  const sym = Symbol.for(`switchboard.${key}`);
  if (store[sym] === undefined) store[sym] = create();
  return store[sym] as T;
}
