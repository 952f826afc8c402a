import { createHash, randomBytes } from 'node:crypto';

/**
 * The secrets the app hands out once and then only recognises — share links, personal access
 * tokens, invitation and password-reset links, OAuth flow states: random, and stored only as a hash.
 */

/** 32 random bytes in base64url (43 characters). */
export function newRandomToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * What is stored in place of a random token: its SHA-256 in hex. The lookup is by hash, so no
 * comparison of the secret happens in JavaScript that could leak through timing: an attacker
 * controls the input of SHA-256, not its output, and learning how many leading characters of a hash
 * matched an index entry tells nothing about a token with 256 random bits. Plain SHA-256 (no salt,
 * no slow hash) is enough because the token is random, not chosen by a person: there is no
 * dictionary to try.
 */
export function hashRandomToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
