import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { sealV1 } from '@/test/legacy-seal';

import { flowSecretContext, serverSecretContext } from './seal-contexts';
import { createSecretBox, loadSecretBox, parseKey, sealedKeyId, sealedVersion, SecretBoxError, type SealContext } from './secret-box';

const key = () => randomBytes(32);
const b64 = (k: Buffer) => k.toString('base64');
/** Where the values of these tests are stored (a server's headers). */
const here: SealContext = serverSecretContext('headers_sealed', { id: 'server-1', userId: 'user-a' });

describe('SecretBox', () => {
  afterEach(() => vi.restoreAllMocks());

  it('round-trips text (unicode, empty, long) with a fresh IV each time', () => {
    const box = createSecretBox(key());
    for (const text of ['', 'Bearer sk-live-123', 'ünïcødé 🔑', 'x'.repeat(100_000)]) {
      expect(box.open(box.seal(text, here), here)).toBe(text);
    }
    const a = box.seal('same', here);
    const b = box.seal('same', here);
    expect(a).not.toBe(b);
    expect(a).toMatch(/^v2\.[A-Za-z0-9_-]{8}\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]+$/);
    expect(sealedKeyId(a)).toBe(box.keyId);
    expect(a).not.toContain('same');
  });

  it('detects tampering in any part', () => {
    const box = createSecretBox(key());
    const sealed = box.seal('secret value', here);
    const parts = sealed.split('.');
    for (const i of [2, 3, 4]) {
      const bytes = Buffer.from(parts[i]!, 'base64url');
      bytes[0]! ^= 1;
      const altered = [...parts];
      altered[i] = bytes.toString('base64url');
      expect(() => box.open(altered.join('.'), here)).toThrow(SecretBoxError);
    }
    // Relabelled as v1 (whose data has no context): the data differs, the check fails.
    expect(() => box.open('v1.' + parts.slice(1).join('.'), here)).toThrow(/integrity/);
    expect(() => box.open('v3.' + parts.slice(1).join('.'), here)).toThrow(/unknown format/);
    expect(() => box.open('not sealed', here)).toThrow(SecretBoxError);
  });

  it('refuses a value sealed with another key, naming the key id but nothing secret', () => {
    const sealed = createSecretBox(key()).seal('top secret', here);
    const other = createSecretBox(key());
    expect(() => other.open(sealed, here)).toThrow(/neither SECRETS_KEY nor one of SECRETS_KEY_PREVIOUS/);
    try {
      other.open(sealed, here);
    } catch (err) {
      expect(String(err)).not.toContain('top secret');
    }
    // A value relabelled with the box's own key id fails the integrity check.
    const relabelled = sealed.replace(`.${sealedKeyId(sealed)}.`, `.${other.keyId}.`);
    expect(() => other.open(relabelled, here)).toThrow(/integrity/);
  });

  it('rotation: previous keys still open old values; the new key seals', () => {
    const oldKey = key();
    const newKey = key();
    const oldBox = createSecretBox(oldKey);
    const sealedOld = oldBox.seal('token-1', here);
    const rotated = createSecretBox(newKey, [oldKey]);
    expect(rotated.keyId).not.toBe(oldBox.keyId);
    expect(rotated.open(sealedOld, here)).toBe('token-1');
    const resealed = rotated.seal(rotated.open(sealedOld, here), here);
    expect(sealedKeyId(resealed)).toBe(rotated.keyId);
    // after the old key is dropped, the re-sealed value still opens
    expect(createSecretBox(newKey).open(resealed, here)).toBe('token-1');
    expect(() => createSecretBox(newKey).open(sealedOld, here)).toThrow(SecretBoxError);
  });

  it('a value opens only where it was sealed for: another table, column, row or owner is refused', () => {
    const box = createSecretBox(key());
    const sealed = box.seal('Bearer sk-live-123', here);
    expect(sealedVersion(sealed)).toBe('v2');
    // The order the row's keys are given in is not part of it.
    expect(box.open(sealed, { ...here, row: { userId: 'user-a', id: 'server-1' } })).toBe('Bearer sk-live-123');
    const elsewhere: Array<[string, SealContext]> = [
      ['another row', serverSecretContext('headers_sealed', { id: 'server-2', userId: 'user-a' })],
      ['another owner', serverSecretContext('headers_sealed', { id: 'server-1', userId: 'user-b' })],
      ['another column', serverSecretContext('oauth_client_secret_sealed', { id: 'server-1', userId: 'user-a' })],
      ['another table', flowSecretContext({ id: 'server-1', userId: 'user-a' })],
      ['a row key more', { ...here, row: { ...here.row, extra: 'x' } }],
    ];
    for (const [what, context] of elsewhere) {
      expect(() => box.open(sealed, context), what).toThrow(SecretBoxError);
    }
    // The message says where, never what: safe to log.
    try {
      box.open(sealed, elsewhere[0]![1]);
    } catch (err) {
      expect((err as Error).message).toMatch(/mcp_servers\.headers_sealed failed its integrity check.*another row or column/);
      expect((err as Error).message).not.toContain('sk-live');
      expect((err as Error).message).not.toContain('server-2');
    }
  });

  it('the encoding of a context is unambiguous: values that would run together differ', () => {
    const box = createSecretBox(key());
    // Joined with separators, each pair would read the same.
    const a: SealContext = { table: 't', column: 'c', row: { id: '1","2' } };
    const b: SealContext = { table: 't', column: 'c', row: { id: '1', x: '2' } };
    const c: SealContext = { table: 'oauth_credentials.tokens', column: 'x', row: { id: '1' } };
    const d: SealContext = { table: 'oauth_credentials', column: 'tokens.x', row: { id: '1' } };
    expect(() => box.open(box.seal('t', a), b)).toThrow(SecretBoxError);
    expect(() => box.open(box.seal('t', c), d)).toThrow(SecretBoxError);
  });

  it('refuses to seal or open without a full context (a programming error, said at once)', () => {
    const box = createSecretBox(key());
    expect(() => box.seal('x', { table: 'mcp_servers', column: 'headers_sealed', row: {} })).toThrow(/non-empty row key/);
    expect(() => box.seal('x', { table: '', column: 'headers_sealed', row: { id: '1' } })).toThrow(/needs a table/);
    expect(() => box.open(box.seal('x', here), { ...here, row: { id: '' } })).toThrow(/non-empty row key/);
  });

  it('v1 values (sealed before contexts) still open, under the current or a previous key, wherever they are', () => {
    const [oldKey, newKey] = [key(), key()];
    const v1 = sealV1(oldKey, 'legacy token');
    expect(sealedVersion(v1)).toBe('v1');
    expect(sealedKeyId(v1)).toBe(createSecretBox(oldKey).keyId);
    expect(createSecretBox(oldKey).open(v1, here)).toBe('legacy token');
    expect(createSecretBox(newKey, [oldKey]).open(v1, flowSecretContext({ id: 'f', userId: 'u' }))).toBe('legacy token');
    // Tampered, or once its key is dropped, it does not.
    const parts = v1.split('.');
    const data = Buffer.from(parts[4]!, 'base64url');
    data[0]! ^= 1;
    expect(() => createSecretBox(oldKey).open([...parts.slice(0, 4), data.toString('base64url')].join('.'), here)).toThrow(/integrity/);
    expect(() => createSecretBox(newKey).open(v1, here)).toThrow(/neither SECRETS_KEY/);
    // Relabelled as v2 it is checked with its context, which it was never sealed with.
    expect(() => createSecretBox(oldKey).open(v1.replace(/^v1\./, 'v2.'), here)).toThrow(/integrity/);
  });

  it('key ids are short, stable and differ between keys', () => {
    const k = key();
    expect(createSecretBox(k).keyId).toBe(createSecretBox(Buffer.from(k)).keyId);
    expect(createSecretBox(k).keyId).toHaveLength(8);
    expect(createSecretBox(k).keyId).not.toBe(createSecretBox(key()).keyId);
  });

  it('never logs plaintext', () => {
    const spies = (['log', 'info', 'warn', 'error', 'debug'] as const).map((m) => vi.spyOn(console, m).mockImplementation(() => {}));
    const box = createSecretBox(key());
    const sealed = box.seal('PLAINTEXT-MARKER', here);
    box.open(sealed, here);
    try {
      createSecretBox(key()).open(sealed, here);
    } catch {
      /* expected */
    }
    for (const spy of spies) expect(spy).not.toHaveBeenCalled();
  });
});

describe('loadSecretBox', () => {
  async function tmpDir() {
    return path.join(await mkdtemp(path.join(os.tmpdir(), 'sb-secrets-')), 'data');
  }

  it('uses SECRETS_KEY and SECRETS_KEY_PREVIOUS (comma-separated)', async () => {
    const [cur, p1, p2] = [key(), key(), key()];
    const box = await loadSecretBox(
      { SECRETS_KEY: b64(cur), SECRETS_KEY_PREVIOUS: ` ${b64(p1)} , ${p2.toString('base64url')}` },
      await tmpDir(),
    );
    expect(box.keyId).toBe(createSecretBox(cur).keyId);
    expect(box.open(createSecretBox(p1).seal('a', here), here)).toBe('a');
    expect(box.open(createSecretBox(p2).seal('b', here), here)).toBe('b');
  });

  it('names the variable when a key is malformed', async () => {
    const dir = await tmpDir();
    await expect(loadSecretBox({ SECRETS_KEY: 'short' }, dir)).rejects.toThrow(/^SECRETS_KEY must be 32 bytes/);
    await expect(loadSecretBox({ SECRETS_KEY: '!!not base64!!' }, dir)).rejects.toThrow(/SECRETS_KEY must be 32 bytes.*not base64/);
    await expect(loadSecretBox({ SECRETS_KEY: b64(key()), SECRETS_KEY_PREVIOUS: 'nope' }, dir)).rejects.toThrow(
      /SECRETS_KEY_PREVIOUS \(entry 1\) must be 32 bytes/,
    );
  });

  it('refuses to start with DATABASE_URL and no SECRETS_KEY', async () => {
    await expect(loadSecretBox({ DATABASE_URL: 'postgres://x' }, await tmpDir())).rejects.toThrow(/SECRETS_KEY is not set.*DATABASE_URL/);
  });

  it('generates a key once under the data folder, in a 0600 file, on the embedded default', async () => {
    const dir = await tmpDir();
    const first = await loadSecretBox({ DATABASE_URL: '', SECRETS_KEY: '' }, dir);
    const second = await loadSecretBox({}, dir);
    expect(second.keyId).toBe(first.keyId);
    expect(second.open(first.seal('kept across restarts', here), here)).toBe('kept across restarts');
    const file = path.join(dir, 'secrets-key');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    expect(parseKey(await readFile(file, 'utf8'), 'file')).toHaveLength(32);
  });
});
