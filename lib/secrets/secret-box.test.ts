import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { createSecretBox, loadSecretBox, parseKey, sealedKeyId, SecretBoxError } from './secret-box';

const key = () => randomBytes(32);
const b64 = (k: Buffer) => k.toString('base64');

describe('SecretBox', () => {
  afterEach(() => vi.restoreAllMocks());

  it('round-trips text (unicode, empty, long) with a fresh IV each time', () => {
    const box = createSecretBox(key());
    for (const text of ['', 'Bearer sk-live-123', 'ünïcødé 🔑', 'x'.repeat(100_000)]) expect(box.open(box.seal(text))).toBe(text);
    const a = box.seal('same');
    const b = box.seal('same');
    expect(a).not.toBe(b);
    expect(a).toMatch(/^v1\.[A-Za-z0-9_-]{8}\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]+$/);
    expect(sealedKeyId(a)).toBe(box.keyId);
    expect(a).not.toContain('same');
  });

  it('detects tampering in any part', () => {
    const box = createSecretBox(key());
    const sealed = box.seal('secret value');
    const parts = sealed.split('.');
    for (const i of [2, 3, 4]) {
      const bytes = Buffer.from(parts[i]!, 'base64url');
      bytes[0]! ^= 1;
      const altered = [...parts];
      altered[i] = bytes.toString('base64url');
      expect(() => box.open(altered.join('.'))).toThrow(SecretBoxError);
    }
    expect(() => box.open('v2.' + parts.slice(1).join('.'))).toThrow(/unknown format/);
    expect(() => box.open('not sealed')).toThrow(SecretBoxError);
  });

  it('refuses a value sealed with another key, naming the key id but nothing secret', () => {
    const sealed = createSecretBox(key()).seal('top secret');
    const other = createSecretBox(key());
    expect(() => other.open(sealed)).toThrow(/neither SECRETS_KEY nor one of SECRETS_KEY_PREVIOUS/);
    try {
      other.open(sealed);
    } catch (err) {
      expect(String(err)).not.toContain('top secret');
    }
    // A value relabelled with the box's own key id fails the integrity check.
    const relabelled = sealed.replace(`.${sealedKeyId(sealed)}.`, `.${other.keyId}.`);
    expect(() => other.open(relabelled)).toThrow(/integrity/);
  });

  it('rotation: previous keys still open old values; the new key seals', () => {
    const oldKey = key();
    const newKey = key();
    const oldBox = createSecretBox(oldKey);
    const sealedOld = oldBox.seal('token-1');
    const rotated = createSecretBox(newKey, [oldKey]);
    expect(rotated.keyId).not.toBe(oldBox.keyId);
    expect(rotated.open(sealedOld)).toBe('token-1');
    const resealed = rotated.seal(rotated.open(sealedOld));
    expect(sealedKeyId(resealed)).toBe(rotated.keyId);
    // after the old key is dropped, the re-sealed value still opens
    expect(createSecretBox(newKey).open(resealed)).toBe('token-1');
    expect(() => createSecretBox(newKey).open(sealedOld)).toThrow(SecretBoxError);
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
    const sealed = box.seal('PLAINTEXT-MARKER');
    box.open(sealed);
    try {
      createSecretBox(key()).open(sealed);
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
    expect(box.open(createSecretBox(p1).seal('a'))).toBe('a');
    expect(box.open(createSecretBox(p2).seal('b'))).toBe('b');
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
    expect(second.open(first.seal('kept across restarts'))).toBe('kept across restarts');
    const file = path.join(dir, 'secrets-key');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    expect(parseKey(await readFile(file, 'utf8'), 'file')).toHaveLength(32);
  });
});
