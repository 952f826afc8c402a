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

/**
 * A value loaded once per process (see `processSingleton`) on first use, never at import. A load
 * that fails is not kept: the next caller tries again, so a database or a key file that was not
 * ready yet does not leave the process broken until it restarts.
 */
export function loadOncePerProcess<T>(key: string, load: () => Promise<T>): Promise<T> {
  const state = processSingleton(key, () => ({ loading: undefined as Promise<T> | undefined }));
  state.loading ??= load().catch((err: unknown) => {
    state.loading = undefined;
    throw err;
  });
  return state.loading;
}
