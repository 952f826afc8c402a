import { randomBytes, randomUUID } from 'node:crypto';
import { eq, getTableName } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { insertOrg } from '@/db/queries/orgs';
import { createUser } from '@/db/queries/users';
import { authSessions, mcpServers, oauthCredentials, oauthFlows, orgServers } from '@/db/schema';
import { openTestDb, TEST_DATABASES } from '@/test/db';
import { sealV1 } from '@/test/legacy-seal';

import { rotateSecrets } from './rotate';
import { credentialSecretContext, flowSecretContext, serverSecretContext } from './seal-contexts';
import { SEALED_COLUMNS } from './sealed-columns';
import { createSecretBox, sealedKeyId, sealedVersion, SecretBoxError } from './secret-box';

const AUTH_SERVER = {
  v: 1 as const,
  metadata: {
    issuer: 'https://auth.example.test',
    authorization_endpoint: 'https://auth.example.test/authorize',
    token_endpoint: 'https://auth.example.test/token',
    response_types_supported: ['code'],
  },
};

for (const { kind, available } of TEST_DATABASES) {
  describe.skipIf(!available)(`npm run rotate-secrets on ${kind}`, () => {
    let h: DbHandle;
    beforeAll(async () => {
      h = await openTestDb(kind);
    });
    afterAll(async () => h?.close());
    // Each test counts what one run finds in the whole database: it starts from none.
    beforeEach(async () => {
      await h.db.delete(oauthFlows);
      await h.db.delete(oauthCredentials);
      await h.db.delete(mcpServers);
      await h.db.delete(orgServers);
    });

    /** One of each sealed column, as an earlier release stored it: v1, under `key`. */
    async function legacyRows(key: Buffer) {
      const user = (await createUser(h.db, { email: `r${randomBytes(4).toString('hex')}@example.test` }))!;
      const [server] = await h.db
        .insert(mcpServers)
        .values({
          userId: user.id,
          name: 'Legacy',
          namespace: `legacy${randomBytes(3).toString('hex')}`,
          url: 'https://mcp.example.test/mcp',
          headersSealed: sealV1(key, '{"Authorization":"Bearer old"}'),
          oauthClientId: 'client-1',
          oauthClientSecretSealed: sealV1(key, 'client-secret'),
        })
        .returning();
      const [credential] = await h.db
        .insert(oauthCredentials)
        .values({
          userId: user.id,
          issuer: AUTH_SERVER.metadata.issuer,
          resource: 'https://mcp.example.test/mcp',
          clientInfo: sealV1(key, '{"client_id":"dcr-1"}'),
          tokens: sealV1(key, '{"access_token":"at","token_type":"Bearer"}'),
          authServer: AUTH_SERVER,
        })
        .returning();
      const sessionId = randomBytes(8).toString('hex');
      await h.db.insert(authSessions).values({ id: sessionId, userId: user.id, expiresAt: new Date(Date.now() + 3_600_000) });
      const [flow] = await h.db
        .insert(oauthFlows)
        .values({
          stateHash: randomBytes(16).toString('hex'),
          userId: user.id,
          authSessionId: sessionId,
          serverId: server!.id,
          codeVerifier: sealV1(key, 'verifier'),
          issuer: AUTH_SERVER.metadata.issuer,
          resource: 'https://mcp.example.test/mcp',
          redirectUri: 'https://app.example.test/api/oauth/callback',
          returnTo: '/servers',
          discovery: { v: 1, authorizationServerUrl: AUTH_SERVER.metadata.issuer, authorizationServerMetadata: AUTH_SERVER.metadata },
          expiresAt: new Date(Date.now() + 600_000),
        })
        .returning();
      // A shared server's credential (no v1 was ever written there, but rotation treats every column alike).
      const org = await insertOrg(h.db, { name: 'Legacy Org' });
      await h.db.insert(orgServers).values({
        orgId: org.id,
        name: 'Legacy shared',
        namespace: `shared${randomBytes(3).toString('hex')}`,
        url: 'https://mcp.example.test/mcp',
        auth: 'shared',
        headersSealed: sealV1(key, '{"X-Api-Key":"old"}'),
      });
      return { user: user.id, server: server!, credential: credential!, flow: flow! };
    }

    it('upgrades v1 values to v2 bound to their row (same key), then finds nothing left to do', async () => {
      const key = randomBytes(32);
      const box = createSecretBox(key);
      const { server, credential, flow } = await legacyRows(key);

      const reports = await rotateSecrets(h.db, box, SEALED_COLUMNS);
      const mine = (label: string) => reports.find((r) => r.label === label)!;
      for (const r of reports) expect(r.unreadable, r.label).toBe(0);
      for (const label of SEALED_COLUMNS.map((c) => c.label)) expect(mine(label).upgraded, label).toBeGreaterThanOrEqual(1);

      const [s] = await h.db.select().from(mcpServers).where(eq(mcpServers.id, server.id));
      const [c] = await h.db.select().from(oauthCredentials).where(eq(oauthCredentials.id, credential.id));
      const [f] = await h.db.select().from(oauthFlows).where(eq(oauthFlows.id, flow.id));
      const values = [s!.headersSealed!, s!.oauthClientSecretSealed!, c!.clientInfo!, c!.tokens!, f!.codeVerifier];
      for (const v of values) {
        expect(sealedVersion(v)).toBe('v2');
        expect(sealedKeyId(v)).toBe(box.keyId);
      }
      expect(box.open(s!.headersSealed!, serverSecretContext('headers_sealed', s!))).toBe('{"Authorization":"Bearer old"}');
      expect(box.open(s!.oauthClientSecretSealed!, serverSecretContext('oauth_client_secret_sealed', s!))).toBe('client-secret');
      expect(box.open(c!.clientInfo!, credentialSecretContext('client_info', c!))).toBe('{"client_id":"dcr-1"}');
      expect(box.open(c!.tokens!, credentialSecretContext('tokens', c!))).toBe('{"access_token":"at","token_type":"Bearer"}');
      expect(box.open(f!.codeVerifier, flowSecretContext(f!))).toBe('verifier');
      // Now bound: the upgraded headers no longer open as another column of the row.
      expect(() => box.open(s!.headersSealed!, serverSecretContext('oauth_client_secret_sealed', s!))).toThrow(SecretBoxError);

      const again = await rotateSecrets(h.db, box, SEALED_COLUMNS);
      expect(again.reduce((n, r) => n + r.resealed, 0)).toBe(0);
    });

    it('a new key: v1 under the old key becomes v2 under the new; a value copied to another row is unreadable, left', async () => {
      const [oldKey, newKey] = [randomBytes(32), randomBytes(32)];
      const a = await legacyRows(oldKey);
      const b = await legacyRows(oldKey);
      // Someone pastes a's headers, bound to a's row, into b's row.
      const oldBox = createSecretBox(oldKey);
      const bound = oldBox.seal('{"Authorization":"Bearer a"}', serverSecretContext('headers_sealed', a.server));
      await h.db.update(mcpServers).set({ headersSealed: bound }).where(eq(mcpServers.id, b.server.id));

      const box = createSecretBox(newKey, [oldKey]);
      const reports = await rotateSecrets(h.db, box, SEALED_COLUMNS);
      const headers = reports.find((r) => r.label === 'mcp_servers.headers_sealed')!;
      expect(headers.unreadable).toBe(1);
      const [sb] = await h.db.select().from(mcpServers).where(eq(mcpServers.id, b.server.id));
      expect(sb!.headersSealed).toBe(bound); // left as it was
      const [sa] = await h.db.select().from(mcpServers).where(eq(mcpServers.id, a.server.id));
      expect(sealedVersion(sa!.headersSealed!)).toBe('v2');
      expect(createSecretBox(newKey).open(sa!.headersSealed!, serverSecretContext('headers_sealed', a.server))).toBe(
        '{"Authorization":"Bearer old"}',
      );
      const [fb] = await h.db.select().from(oauthFlows).where(eq(oauthFlows.id, b.flow.id));
      expect(createSecretBox(newKey).open(fb!.codeVerifier, flowSecretContext(b.flow))).toBe('verifier');
    });
  });
}

describe('SEALED_COLUMNS', () => {
  // Were a sealed column renamed, its label would follow the schema but its context must not
  // (the values hold it): this check would then be relaxed for that column, not the context changed.
  it('each entry names its schema column, and its values are bound to that table and column', () => {
    const row = { id: randomUUID(), userId: randomUUID(), issuer: 'https://i.example', resource: 'https://r.example' };
    for (const col of SEALED_COLUMNS) {
      expect(col.label).toBe(`${getTableName(col.table)}.${col.value.name}`);
      const context = col.context(row);
      expect(`${context.table}.${context.column}`).toBe(col.label);
    }
  });
});
