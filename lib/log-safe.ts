/**
 * What may be logged of an error: its name, a code, and a message with query parameters cut
 * off. Drizzle's query errors quote the SQL parameters (emails, password hashes, note text);
 * those must never reach the logs.
 */
export function errorSummary(err: unknown): string {
  if (!(err instanceof Error)) return String(err).slice(0, 300);
  const code = (err as { code?: unknown }).code;
  const cause = err.cause instanceof Error ? ` (cause: ${stripParams(err.cause.message)})` : '';
  return `${err.name}${code ? ` [${String(code)}]` : ''}: ${stripParams(err.message)}${cause}`;
}

function stripParams(message: string): string {
  return message.split(/\nparams:|params:/)[0]!.slice(0, 500);
}
