import { mkdtemp, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { auditKeyId, loadAuditKeyring } from './key';
import { auditRetentionDays } from './retention';

const KEY = Buffer.alloc(32, 5).toString('base64');

describe('the audit key', () => {
  it('takes AUDIT_KEY, and AUDIT_KEY_PREVIOUS for entries signed before a rotation', async () => {
    const old = Buffer.alloc(32, 4);
    const keys = await loadAuditKeyring({ AUDIT_KEY: KEY, AUDIT_KEY_PREVIOUS: old.toString('base64') }, '/nonexistent');
    expect(keys.current.id).toBe(auditKeyId(Buffer.alloc(32, 5)));
    expect(keys.byId.get(auditKeyId(old))).toEqual(old);
  });

  it('refuses to start with DATABASE_URL and no AUDIT_KEY, saying why', async () => {
    await expect(loadAuditKeyring({ DATABASE_URL: 'postgres://x' }, '/nonexistent')).rejects.toThrow(
      /AUDIT_KEY is not set\. With DATABASE_URL several instances append to one audit log and must share the key/,
    );
    await expect(loadAuditKeyring({ AUDIT_KEY: 'short' })).rejects.toThrow(/AUDIT_KEY must be 32 bytes/);
  });

  it('without either, generates one key in the data folder (0600) and keeps using it', async () => {
    const dir = path.join(await mkdtemp(path.join(os.tmpdir(), 'sb-audit-key-')), 'data');
    const first = await loadAuditKeyring({}, dir);
    const again = await loadAuditKeyring({}, dir);
    expect(again.current.id).toBe(first.current.id);
    expect((await stat(path.join(dir, 'audit-key'))).mode & 0o777).toBe(0o600);
  });

  it('reads AUDIT_RETENTION_DAYS (default 365) and refuses nonsense', () => {
    expect(auditRetentionDays({})).toBe(365);
    expect(auditRetentionDays({ AUDIT_RETENTION_DAYS: '30' })).toBe(30);
    expect(() => auditRetentionDays({ AUDIT_RETENTION_DAYS: '0' })).toThrow(/at least 1/);
    expect(() => auditRetentionDays({ AUDIT_RETENTION_DAYS: '1.5' })).toThrow(/whole number/);
  });
});
