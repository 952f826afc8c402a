import { AppError } from '@/lib/http/errors';

/** The AppError `p` rejects with; throws when it resolves or rejects with anything else. */
export async function rejection(p: Promise<unknown>): Promise<AppError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof AppError)) throw new Error(`expected an AppError, got ${String(err)}`);
  return err;
}
