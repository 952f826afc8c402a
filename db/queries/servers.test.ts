import { randomBytes, randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { rotateSecrets } from '@/lib/secrets/rotate';
import { serverSecretContext } from '@/lib/secrets/seal-contexts';
import { SEALED_COLUMNS } from '@/lib/secrets/sealed-columns';
import { createSecretBox, sealedKeyId } from '@/lib/secrets/secret-box';

import { openTestDb, TEST_DATABASES } from '../../test/db';
import type { DbHandle } from '../connection';
import { mcpServers } from '../schema';
import {
  deleteServer,
  enableServer,
  getServer,
  insertServer,
  listEnabledServers,
  listServers,
  recordServerCheck,
  updateServer,
  type NewServer,
} from './servers';
import { createUser, deleteUser } from './users';

const base: NewServer = {
  name: 'Weather',
  namespace: 'weather',
  url: 'https://mcp.example.test/mcp',
  trust: 'untrusted',
  headersSealed: null,
  oauthClientId: null,
  oauthClientSecretSealed: null,
  timeoutMs: 30_000,
};

for (const { kind, available } of TEST_DATABASES) {
  describe.skipIf(!available)(`mcp_servers queries on ${kind}`, () => {
    let h: DbHandle;
    beforeAll(async () => {
      h = await openTestDb(kind);
    });
    afterAll(async () => h?.close());

    async function newUser() {
      const u = await createUser(h.db, { email: `s${Math.random().toString(36).slice(2)}@example.test` });
      if (!u) throw new Error('user not created');
      return u.id;
    }

    it('adds with defaults, refuses a second namespace per user, and scopes reads to the owner', async () => {
      const alice = await newUser();
      const bob = await newUser();
      const s = (await insertServer(h.db, alice, base))!;
      expect(s).toMatchObject({ enabled: false, status: 'unchecked', reviewedTools: { v: 2, tools: {} }, transport: null });
      expect(await insertServer(h.db, alice, { ...base, name: 'Other' })).toBeNull();
      expect(await insertServer(h.db, bob, base)).not.toBeNull(); // another user may use the same namespace
      expect(await getServer(h.db, bob, s.id)).toBeNull();
      expect(await updateServer(h.db, bob, s.id, { name: 'x' }, { urlChanged: false })).toBeNull();
      expect(await deleteServer(h.db, bob, s.id)).toBe(false);
      expect((await listServers(h.db, alice)).map((r) => r.id)).toEqual([s.id]);
    });

    it('a URL change drops secrets, approval and status in the same update; a namespace clash is a conflict', async () => {
      const me = await newUser();
      const s = (await insertServer(h.db, me, {
        ...base,
        id: randomUUID(),
        headersSealed: 'sealed-h',
        oauthClientId: 'cid',
        oauthClientSecretSealed: 'sealed-c',
      }))!;
      await enableServer(h.db, me, s.id, { forecast: 'f1' });
      await recordServerCheck(h.db, me, s.id, {
        status: 'connected',
        lastError: null,
        protocolVersion: '2026-07-28',
        transport: 'streamable_http',
        checkedAt: new Date(),
      });
      const same = (await updateServer(h.db, me, s.id, { name: 'Renamed' }, { urlChanged: false })) as typeof s;
      expect(same).toMatchObject({ name: 'Renamed', headersSealed: 'sealed-h', enabled: true, status: 'connected' });
      const moved = (await updateServer(h.db, me, s.id, { url: 'https://other.example.test/' }, { urlChanged: true })) as typeof s;
      expect(moved).toMatchObject({
        headersSealed: null,
        oauthClientId: 'cid',
        oauthClientSecretSealed: null,
        enabled: false,
        reviewedTools: { v: 2, tools: {} },
        status: 'unchecked',
        protocolVersion: null,
      });
      await insertServer(h.db, me, { ...base, namespace: 'taken' });
      expect(await updateServer(h.db, me, s.id, { namespace: 'taken' }, { urlChanged: false })).toBe('conflict');
    });

    it('enabling merges the approved fingerprints; only enabled servers are listed for the tool host', async () => {
      const me = await newUser();
      const a = (await insertServer(h.db, me, { ...base, namespace: 'a' }))!;
      await insertServer(h.db, me, { ...base, namespace: 'b' });
      await enableServer(h.db, me, a.id, { x: '1', y: '2' });
      const again = (await enableServer(h.db, me, a.id, { y: '3' }))!;
      expect(again.reviewedTools.tools).toEqual({ x: '1', y: '3' });
      expect((await listEnabledServers(h.db, me)).map((r) => r.namespace)).toEqual(['a']);
    });

    it('goes with its user', async () => {
      const me = await newUser();
      const s = (await insertServer(h.db, me, base))!;
      await deleteUser(h.db, me);
      expect(await h.db.select().from(mcpServers).where(eq(mcpServers.id, s.id))).toEqual([]);
    });

    it('rotate-secrets re-seals every sealed column under the new key and keeps the values readable', async () => {
      const me = await newUser();
      const oldKey = randomBytes(32);
      const newKey = randomBytes(32);
      const oldBox = createSecretBox(oldKey);
      const key = { id: randomUUID(), userId: me };
      const s = (await insertServer(h.db, me, {
        ...base,
        id: key.id,
        namespace: 'rot',
        headersSealed: oldBox.seal('{"X-Api-Key":"k-1"}', serverSecretContext('headers_sealed', key)),
        oauthClientSecretSealed: oldBox.seal('client-secret', serverSecretContext('oauth_client_secret_sealed', key)),
      }))!;
      const box = createSecretBox(newKey, [oldKey]);
      const reports = await rotateSecrets(h.db, box, SEALED_COLUMNS);
      expect(reports.every((r) => r.unreadable === 0)).toBe(true);
      expect(reports.reduce((n, r) => n + r.resealed, 0)).toBeGreaterThanOrEqual(2);
      const after = (await getServer(h.db, me, s.id))!;
      expect(sealedKeyId(after.headersSealed!)).toBe(box.keyId);
      const onlyNew = createSecretBox(newKey);
      expect(onlyNew.open(after.headersSealed!, serverSecretContext('headers_sealed', key))).toBe('{"X-Api-Key":"k-1"}');
      expect(onlyNew.open(after.oauthClientSecretSealed!, serverSecretContext('oauth_client_secret_sealed', key))).toBe('client-secret');
      // A second run has nothing left to do.
      const again = await rotateSecrets(h.db, box, SEALED_COLUMNS);
      expect(again.reduce((n, r) => n + r.resealed, 0)).toBe(0);
    });
  });
}
