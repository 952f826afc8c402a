import { trustedProxyHops } from '@/lib/http/origin';

import { authLimits } from './limits';
import { currentParams } from './password';
import { configuredAppUrl } from './secure-cookies';

type Env = Record<string, string | undefined>;

/**
 * Reads every auth setting once at start-up, so a typo (TRUSTED_PROXIES=yes, a malformed
 * APP_URL) stops the start with its message instead of failing each sign-in with a 500.
 */
export function checkAuthConfig(env: Env = process.env): void {
  trustedProxyHops(env);
  currentParams(env);
  authLimits(env);
  try {
    configuredAppUrl(env);
  } catch {
    throw new Error(`APP_URL / AUTH_URL must be a full URL such as https://chat.example.com (got "${env.APP_URL || env.AUTH_URL}").`);
  }
}
