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

/** Query parameters whose values may be credentials. */
const SECRET_PARAM = /([?&;][^=\s&#;]*(?:token|key|secret|code|sig|signature|password|passwd|auth|session)[^=\s&#;]*=)[^\s&#;"'<>]+/gi;

/**
 * Text that may be stored (a server's last error) or shown: every given secret value replaced,
 * bearer tokens and credential-like query parameters redacted. For messages that may quote a
 * server's own words, which could echo back what was sent to it.
 */
export function redactSecrets(text: string, secrets: readonly string[] = []): string {
  let out = text;
  // Longest first, so a secret that contains another is replaced whole.
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) {
    if (secret.length >= 4) out = out.split(secret).join('[redacted]');
  }
  return out.replace(/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/g, '$1 [redacted]').replace(SECRET_PARAM, '$1[redacted]');
}
