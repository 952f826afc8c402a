import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { readTar, writeTar } from './tar';

const ENTRIES = [
  { name: 'switchboard-backup.json', data: Buffer.from('{"v":1}\n') },
  { name: 'keys/audit-key', data: Buffer.alloc(512, 7) },
  { name: 'empty', data: Buffer.alloc(0) },
];

describe('tar (what a backup file is)', () => {
  it('reads back what it wrote, sizes on and off the 512-byte blocks', () => {
    const files = readTar(writeTar(ENTRIES));
    expect([...files.keys()]).toEqual(ENTRIES.map((e) => e.name));
    for (const e of ENTRIES) expect(files.get(e.name)!.equals(e.data)).toBe(true);
  });

  it('is a standard ustar archive: the system tar lists and unpacks it with mode 0600, and what it writes reads back', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'sb-tar-'));
    try {
      const file = path.join(dir, 'a.tar');
      writeFileSync(file, writeTar(ENTRIES));
      execFileSync('tar', ['-xf', file, '-C', dir]);
      expect(readFileSync(path.join(dir, 'keys/audit-key')).equals(ENTRIES[1]!.data)).toBe(true);
      expect(statSync(path.join(dir, 'keys/audit-key')).mode & 0o777).toBe(0o600);
      execFileSync('tar', ['--format=ustar', '-cf', path.join(dir, 'b.tar'), '-C', dir, 'switchboard-backup.json']);
      expect(
        readTar(readFileSync(path.join(dir, 'b.tar')))
          .get('switchboard-backup.json')!
          .toString(),
      ).toBe('{"v":1}\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a damaged header, a cut archive and something that is not tar, saying which', () => {
    const archive = writeTar(ENTRIES);
    const damaged = Buffer.from(archive);
    damaged[10] = damaged[10]! ^ 0xff;
    expect(() => readTar(damaged)).toThrow('bad header checksum at byte 0');
    expect(() => readTar(archive.subarray(0, 1800))).toThrow('cut short inside "keys/audit-key"');
    expect(() => readTar(archive.subarray(0, 1024))).toThrow('cut short (no end-of-archive blocks)');
    expect(() => readTar(Buffer.alloc(1024, 1))).toThrow('not a tar archive');
    expect(() => writeTar([{ name: 'x'.repeat(101), data: Buffer.alloc(0) }])).toThrow('longer than 100 bytes');
  });
});
