import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

import { parseCookies } from './session';

/**
 * A "known device" cookie (OWASP's device cookies against account lock-out): a browser that has
 * signed in to an account gets a token for it, signed with the app secret. Its sign-in attempts
 * for that account skip the email-wide throttle and the global failure limit, and are throttled
 * on the token instead, so someone hammering an email cannot keep its owner out of a browser
 * they have used before. The token grants nothing else: the password is still checked.
 */
export interface KnownDevice {
  userId: string;
  /** Names this browser's throttle: guesses through a stolen token are bounded per token. */
  nonce: string;
  issuedAt: number;
}

export const KNOWN_DEVICE_COOKIE = 'switchboard.known-device';
export const SECURE_KNOWN_DEVICE_COOKIE = `__Host-${KNOWN_DEVICE_COOKIE}`;
export const KNOWN_DEVICE_MAX_AGE_S = 180 * 24 * 60 * 60;
// A browser shared by a few accounts remembers each; older ones fall off.
const MAX_ACCOUNTS_PER_BROWSER = 5;

function mac(secret: string, payload: string): Buffer {
  return createHmac('sha256', secret).update(`known-device:${payload}`).digest();
}

function encode(device: KnownDevice, secret: string): string {
  const payload = `${device.userId}.${device.nonce}.${Math.floor(device.issuedAt / 1000)}`;
  return `${payload}.${mac(secret, payload).toString('base64url')}`;
}

function decode(token: string, secret: string, now: number): KnownDevice | null {
  const parts = token.split('.');
  if (parts.length !== 4) return null;
  const [userId, nonce, issuedS, sig] = parts as [string, string, string, string];
  const expected = mac(secret, `${userId}.${nonce}.${issuedS}`);
  const given = Buffer.from(sig, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  const issuedAt = Number(issuedS) * 1000;
  if (!Number.isFinite(issuedAt) || now - issuedAt > KNOWN_DEVICE_MAX_AGE_S * 1000 || issuedAt - now > 60_000) return null;
  return { userId, nonce, issuedAt };
}

/** The accounts this browser has signed in to before, from a validly signed, unexpired cookie. */
export function readKnownDevices(cookieHeader: string | null, secret: string, opts: { secure: boolean; now?: number }): KnownDevice[] {
  const raw = parseCookies(cookieHeader).get(opts.secure ? SECURE_KNOWN_DEVICE_COOKIE : KNOWN_DEVICE_COOKIE);
  if (!raw) return [];
  const now = opts.now ?? Date.now();
  return raw
    .split('~')
    .slice(0, MAX_ACCOUNTS_PER_BROWSER)
    .map((token) => decode(token, secret, now))
    .filter((d): d is KnownDevice => d !== null);
}

/**
 * The Set-Cookie value after a successful sign-in to `userId`: its token renewed (same nonce, so
 * its throttle follows it) or newly made, first in the list.
 */
export function knownDeviceSetCookie(
  existing: KnownDevice[],
  userId: string,
  secret: string,
  opts: { secure: boolean; now?: number },
): string {
  const now = opts.now ?? Date.now();
  const nonce = existing.find((d) => d.userId === userId)?.nonce ?? randomBytes(16).toString('base64url');
  const devices = [{ userId, nonce, issuedAt: now }, ...existing.filter((d) => d.userId !== userId)].slice(0, MAX_ACCOUNTS_PER_BROWSER);
  const value = devices.map((d) => encode(d, secret)).join('~');
  const name = opts.secure ? SECURE_KNOWN_DEVICE_COOKIE : KNOWN_DEVICE_COOKIE;
  return `${name}=${value}; Path=/; Max-Age=${KNOWN_DEVICE_MAX_AGE_S}; HttpOnly; SameSite=Lax${opts.secure ? '; Secure' : ''}`;
}
