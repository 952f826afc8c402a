import { readConfig, type Env } from '@/lib/config';
import { AppError } from '@/lib/http/errors';

/**
 * The sign-in providers an operator configured besides email + password, in the order the
 * sign-in page offers them. What the browser gets is this list (ids and names): never a client
 * id or secret.
 */
export interface SsoProvider {
  /** Auth.js's provider id: `/api/auth/signin/<id>`, `/api/auth/callback/<id>`, auth_accounts.provider. */
  id: 'oidc' | 'github' | 'google';
  /** "Continue with <name>". */
  name: string;
}

export function ssoProviders(env?: Env): SsoProvider[] {
  const c = readConfig(env);
  const out: SsoProvider[] = [];
  if (c.AUTH_OIDC_ISSUER && c.AUTH_OIDC_ID && c.AUTH_OIDC_SECRET) out.push({ id: 'oidc', name: c.AUTH_OIDC_NAME });
  if (c.AUTH_GITHUB_ID && c.AUTH_GITHUB_SECRET) out.push({ id: 'github', name: 'GitHub' });
  if (c.AUTH_GOOGLE_ID && c.AUTH_GOOGLE_SECRET) out.push({ id: 'google', name: 'Google' });
  return out;
}

/** AUTH_PASSWORD: whether email + password sign-in (and sign-up, and password changes) are on. */
export function passwordSignInEnabled(env?: Env): boolean {
  return readConfig(env).AUTH_PASSWORD === 'on';
}

/** The refusal of anything password-based with AUTH_PASSWORD=off: `what` "is turned off on this server". */
export function passwordOff(what: string): AppError {
  return new AppError('forbidden', 'password_off', `${what} is turned off on this server: sign in with single sign-on instead.`);
}
