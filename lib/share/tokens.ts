import { hashRandomToken, newRandomToken } from '@/lib/random-token';

/**
 * A share link's token: 32 random bytes, base64url (43 characters). Only its SHA-256 is stored,
 * so a database dump opens no link; the token itself is shown to the owner once.
 */
export function newShareToken(): { token: string; hash: string } {
  const token = newRandomToken();
  return { token, hash: hashShareToken(token) };
}

export const hashShareToken = hashRandomToken;

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** Anything else cannot be one of ours: it is not found without asking the database. */
export function isWellFormedShareToken(token: string): boolean {
  return TOKEN.test(token);
}

/** The link as the owner copies it. */
export function shareUrl(origin: string, token: string): string {
  return `${origin}/share/${token}`;
}
