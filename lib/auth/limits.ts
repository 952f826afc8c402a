import type { ThrottlePolicy } from '@/db/queries/password-check-throttles';
import { CONFIG_DEFAULTS, readConfig, type Env } from '@/lib/config';

/**
 * Password checks on one key (an email, a known device, a user changing their password): five
 * back to back, then 1 s, 2 s, 4 s … apart, at most 15 minutes; a key left alone for a day starts
 * over. So one email can be guessed at most ~20 times in its first hour and ~100 times a day,
 * while its owner, typing the right password once the wait is over, always gets in.
 */
export const PASSWORD_CHECK_THROTTLE: ThrottlePolicy = {
  freeFailures: 5,
  baseDelayMs: 1_000,
  maxDelayMs: 15 * 60_000,
  forgetAfterMs: 24 * 60 * 60_000,
};

/** Fixed-window limits of sign-in and sign-up. */
export interface AuthLimits {
  /** Failed sign-ins per minute across every client, from browsers not known to the account. */
  signInFailuresPerMinute: number;
  /** Failed sign-ins per client address per 15 minutes (only with TRUSTED_PROXIES). */
  signInFailuresPerClient: number;
  /** Sign-ups per minute across every client. */
  signUpsPerMinute: number;
  /** Sign-ups per client address per hour (only with TRUSTED_PROXIES). */
  signUpsPerClient: number;
  /** Sign-up attempts per email per hour (a taken email answers 409 only within it). */
  signUpsPerEmail: number;
}

export const SIGN_IN_CLIENT_WINDOW_MS = 15 * 60_000;
export const SIGN_UP_WINDOW_MS = 60 * 60_000;
export const GLOBAL_WINDOW_MS = 60_000;

export const DEFAULT_AUTH_LIMITS: AuthLimits = {
  signInFailuresPerMinute: CONFIG_DEFAULTS.SIGN_IN_FAILURES_PER_MINUTE,
  signInFailuresPerClient: 50,
  signUpsPerMinute: CONFIG_DEFAULTS.SIGN_UPS_PER_MINUTE,
  signUpsPerClient: 20,
  signUpsPerEmail: 5,
};

/** The defaults, with the two global limits adjustable: `SIGN_IN_FAILURES_PER_MINUTE`, `SIGN_UPS_PER_MINUTE`. */
export function authLimits(env?: Env): AuthLimits {
  const config = readConfig(env);
  return {
    ...DEFAULT_AUTH_LIMITS,
    signInFailuresPerMinute: config.SIGN_IN_FAILURES_PER_MINUTE,
    signUpsPerMinute: config.SIGN_UPS_PER_MINUTE,
  };
}

/** "40 seconds", "3 minutes": how long until `at`, for a 429 message. */
export function retryIn(at: Date, now = new Date()): string {
  const seconds = Math.max(1, Math.ceil((at.getTime() - now.getTime()) / 1000));
  if (seconds < 90) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  return `${Math.ceil(seconds / 60)} minutes`;
}
