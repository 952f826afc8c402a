import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';

import { readConfig, type Env } from '@/lib/config';
import { processSingleton } from '@/lib/process-singleton';

import { Semaphore } from './semaphore';

const KEY_LENGTH = 64;

export interface ScryptParams {
  N: number;
  r: number;
  p: number;
}

/** Current guidance (OWASP password storage cheat sheet): N = 2^17, r = 8, p = 1 — 128 MiB per hash. */
export const STANDARD_PARAMS: ScryptParams = { N: 2 ** 17, r: 8, p: 1 };

/**
 * `PASSWORD_HASH_COST=test` (set by vitest.config.ts and playwright.config.ts only). It exists
 * because the suites sign up and sign in hundreds of times: at 128 MiB and about half a second
 * per hash on a small machine they would spend minutes hashing, and parallel workers could run
 * out of memory. Never set it in production; the app warns when it is set.
 */
export const TEST_PARAMS: ScryptParams = { N: 2 ** 10, r: 8, p: 1 };

/** The parameters new hashes get. */
export function currentParams(env?: Env): ScryptParams {
  if (readConfig(env).PASSWORD_HASH_COST === 'standard') return STANDARD_PARAMS;
  warnTestCostOnce();
  return TEST_PARAMS;
}

// Hashes in flight share the process: two at 128 MiB each is the most memory sign-ins may take,
// and a burst of sign-ins queues instead of starving everything else of CPU.
export const MAX_CONCURRENT_HASHES = 2;
const state = processSingleton('passwordHashing', () => ({ slots: new Semaphore(MAX_CONCURRENT_HASHES), warned: false }));
export const hashingSlots = state.slots;

// Stored hashes are ours, but a corrupted or hostile row must not make us allocate gigabytes.
const LIMITS = { maxN: 2 ** 20, maxR: 32, maxP: 16 };

/** What OpenSSL allocates for these parameters (B and V blocks), plus slack. */
function maxmemFor({ N, r, p }: ScryptParams): number {
  return 128 * r * (N + p + 2) + 1024 * 1024;
}

function scrypt(password: string, salt: Buffer, keylen: number, params: ScryptParams): Promise<Buffer> {
  const options: ScryptOptions = { ...params, maxmem: maxmemFor(params) };
  return hashingSlots.run(
    () => new Promise((resolve, reject) => scryptCb(password, salt, keylen, options, (err, key) => (err ? reject(err) : resolve(key)))),
  );
}

/** `scrypt$N$r$p$<salt b64>$<hash b64>`: parameters travel with the hash so they can be raised later. */
export async function hashPassword(password: string, params: ScryptParams = currentParams()): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, KEY_LENGTH, params);
  return ['scrypt', params.N, params.r, params.p, salt.toString('base64'), key.toString('base64')].join('$');
}

interface ParsedHash {
  params: ScryptParams;
  salt: Buffer;
  hash: Buffer;
}

function parseHash(stored: string): ParsedHash | null {
  const [scheme, n, r, p, saltB64, hashB64] = stored.split('$');
  const params = { N: Number(n), r: Number(r), p: Number(p) };
  if (scheme !== 'scrypt' || !saltB64 || !hashB64) return null;
  if (!Number.isInteger(params.N) || params.N < 2 || params.N > LIMITS.maxN || (params.N & (params.N - 1)) !== 0) return null;
  if (!Number.isInteger(params.r) || params.r < 1 || params.r > LIMITS.maxR) return null;
  if (!Number.isInteger(params.p) || params.p < 1 || params.p > LIMITS.maxP) return null;
  return { params, salt: Buffer.from(saltB64, 'base64'), hash: Buffer.from(hashB64, 'base64') };
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parseHash(stored);
  if (!parsed || parsed.hash.length === 0) return false;
  const key = await scrypt(password, parsed.salt, parsed.hash.length, parsed.params);
  return timingSafeEqual(key, parsed.hash);
}

/** True when the stored hash is cheaper to compute than one made today: rehash it on the next sign-in. */
export function isWeakerThanCurrent(stored: string, params: ScryptParams = currentParams()): boolean {
  const parsed = parseHash(stored);
  if (!parsed) return false;
  const { N, r, p } = parsed.params;
  return N < params.N || r < params.r || p < params.p;
}

// Verified against when the email is unknown, so that case costs the same scrypt as a wrong
// password and timing does not tell whether an account exists.
let dummyHash: Promise<string> | undefined;
export function dummyPasswordHash(): Promise<string> {
  dummyHash ??= hashPassword(randomBytes(16).toString('hex'));
  return dummyHash;
}

function warnTestCostOnce(): void {
  if (state.warned) return;
  state.warned = true;
  if (process.env.VITEST) return;
  console.warn('[auth] PASSWORD_HASH_COST=test: passwords are hashed with a cost meant for tests only.');
}
