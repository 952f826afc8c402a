import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { getRun } from '@/db/queries/runs';
import { getServer, insertServer } from '@/db/queries/servers';
import { listConversationToolCalls } from '@/db/queries/tool-calls';
import { authSessions, oauthCredentials } from '@/db/schema';
import { startRun } from '@/lib/agent/engine';
import { resumeAfterSignIn } from '@/lib/agent/sign-in';
import { staticGrants } from '@/lib/consent/grant-source';
import { createMcpGateway } from '@/lib/mcp/gateway';
import { gatewayOAuth } from '@/lib/mcp/oauth';
import type { McpServerConfig } from '@/lib/mcp/types';
import { openTestDb, TEST_DATABASES } from '@/test/db';
import { engineDeps, userAndConversation } from '@/test/engine-harness';
import { startOAuthFixture, type OAuthFixture } from '@/test/fixtures/oauth-fixture';
import { startScriptedModel } from '@/test/fixtures/scripted-model';
import { loopbackFetch } from '@/test/loopback-fetch';
import { approveAt, startClientMetadataHost, testSecretBox } from '@/test/oauth-harness';
import { text, toolUse } from '@/test/tool-harness';

import { checkReturnTo, disconnectServer, finishServerSignIn, startServerSignIn, type ServersOAuthContext } from './oauth';
import { editServer, removeServer, serverView } from './service';

describe('returnTo', () => {
  it('takes same-origin paths only', () => {
    expect(checkReturnTo(undefined)).toBe('/servers');
    expect(checkReturnTo('/c/123?x=1#end')).toBe('/c/123?x=1#end');
    for (const bad of ['https://evil.example/', '//evil.example/x', '/\\evil.example', 'javascript:alert(1)', 'c/1', '/a\nb', 42]) {
      expect(() => checkReturnTo(bad), String(bad)).toThrow(/returnTo/);
    }
  });
});

describe.each(TEST_DATABASES.filter((d) => d.available))('sign-in from the servers page ($kind)', ({ kind }) => {
  let h: DbHandle;
  let fx: OAuthFixture;
  let app: { origin: string; close(): Promise<void> };
  const box = testSecretBox('servers-oauth');

  beforeAll(async () => {
    h = await openTestDb(kind);
    fx = await startOAuthFixture();
    app = await startClientMetadataHost();
  });
  afterAll(async () => {
    await Promise.all([fx.close(), app.close()]);
    await h.close();
  });

  /** The listings the servers' use-cases asked for (a fresh one after each sign-in). */
  const listings: string[] = [];
  const remote = {
    lastListing: async () => null,
    listTools: async (config: McpServerConfig) => {
      listings.push(config.id);
      return { tools: [], skipped: [], protocolVersion: '2026-07-28', transport: 'streamable_http' };
    },
  };

  function context(): ServersOAuthContext {
    return {
      db: h.db,
      box,
      remote: remote as unknown as ServersOAuthContext['remote'],
      builtinListing: undefined as never,
      allowLoopback: true,
      oauthFetch: loopbackFetch,
      appOrigin: app.origin,
    };
  }

  it('a call that waits for sign-in (step-up) completes after the callback, and the server is connected', async () => {
    const { user, conversation } = await userAndConversation(h);
    const sessionId = `s-${crypto.randomUUID()}`;
    await h.db.insert(authSessions).values({ id: sessionId, userId: user.id, expiresAt: new Date(Date.now() + 3_600_000) });
    const row = (await insertServer(h.db, user.id, {
      name: 'Fixture',
      namespace: 'fx',
      url: fx.url,
      trust: 'trusted',
      headersSealed: null,
      oauthClientId: null,
      oauthClientSecretSealed: null,
      timeoutMs: 5_000,
    }))!;
    const server: McpServerConfig = {
      id: row.id,
      namespace: 'fx',
      displayName: 'Fixture',
      url: fx.url,
      trust: 'trusted',
      timeoutMs: 5_000,
    };
    const ctx = context();
    const session = { userId: user.id, sessionId };
    expect((await serverView(ctx, user.id, row)).signedIn).toBe(false);

    // Connect first (the servers page, before the tools are enabled): read access only.
    const first = await startServerSignIn(ctx, session, row.id, '/servers');
    const connected = await finishServerSignIn(ctx, session, await approveAt(first.authorizationUrl), async () => {});
    expect(connected).toEqual({ ok: true, location: `/servers?oauth=connected&server=${row.id}` });
    expect((await getServer(h.db, user.id, row.id))!.status).toBe('connected');
    // Its tools were listed at once (the page shows them for review), and the page offers Disconnect.
    expect(listings).toEqual([row.id]);
    expect((await getServer(h.db, user.id, row.id))!.protocolVersion).toBe('2026-07-28');
    expect((await serverView(ctx, user.id, row)).signedIn).toBe(true);

    const model = await startScriptedModel([
      { blocks: [text('Writing.'), toolUse('tu_1', 'fx__admin_write', {})] },
      { blocks: [text('Done.')] },
    ]);
    const gateway = createMcpGateway({ fetch: loopbackFetch, oauth: gatewayOAuth({ db: h.db, box, fetch: loopbackFetch }) });
    const deps = engineDeps(h, {
      client: model.client,
      modelName: 'claude-test',
      tools: { gateway, serversFor: async () => [server], grants: staticGrants({ [`${row.id}/*`]: { autoApprove: true } }) },
    });

    // The tool needs mcp:write: the call waits for the person to sign in again, durably.
    const { run } = await startRun(deps, { conversationId: conversation.id, userId: user.id, sessionId, text: 'write it' });
    await deps.idle();
    expect((await getRun(h.db, run.id))!.status).toBe('awaiting_sign_in');
    const [waiting] = await listConversationToolCalls(h.db, conversation.id);
    expect(waiting).toMatchObject({ status: 'awaiting_sign_in' });
    expect(waiting!.signIn).toMatchObject({ serverId: row.id, reason: 'insufficient_scope' });
    expect(waiting!.signIn!.scopes).toEqual(expect.arrayContaining(['mcp:read', 'mcp:write']));
    expect(fx.calls).toHaveLength(0);

    // Connect again from the conversation: the provider is asked for the union of scopes.
    const { authorizationUrl } = await startServerSignIn(ctx, session, row.id, `/c/${conversation.id}`);
    expect(new URL(authorizationUrl).searchParams.get('scope')!.split(' ')).toEqual(expect.arrayContaining(['mcp:read', 'mcp:write']));
    const params = await approveAt(authorizationUrl);
    const back = await finishServerSignIn(ctx, session, params, (s) => resumeAfterSignIn(deps, s));
    expect(back).toEqual({ ok: true, location: `/c/${conversation.id}?oauth=connected&server=${row.id}` });
    await deps.idle();

    expect((await getRun(h.db, run.id))!.status).toBe('completed');
    expect((await listConversationToolCalls(h.db, conversation.id))[0]!.status).toBe('succeeded');
    expect(fx.calls.map((c) => c.name)).toEqual(['admin_write']);
    expect(fx.calls[0]!.scopes).toContain('mcp:write');

    // The same answer again is refused, and the page is told why.
    const again = await finishServerSignIn(ctx, session, params, async () => {});
    expect(again.ok).toBe(false);
    // Only the code travels in the URL: the page words it, and text in a link's query is never shown.
    expect(again.location).toBe('/servers?oauth=failed&reason=used');

    // Disconnect revokes at the provider and forgets the credential.
    expect(await disconnectServer(ctx, user.id, row.id)).toEqual({ revoked: true, hadCredential: true });
    expect((await serverView(ctx, user.id, row)).signedIn).toBe(false);
    await model.close();
  });

  it("removing or re-pointing one server keeps another server's sign-in on the same resource; the last one revokes it", async () => {
    const { user } = await userAndConversation(h);
    const sessionId = `s-${crypto.randomUUID()}`;
    await h.db.insert(authSessions).values({ id: sessionId, userId: user.id, expiresAt: new Date(Date.now() + 3_600_000) });
    const add = async (namespace: string, url: string) =>
      (await insertServer(h.db, user.id, {
        name: namespace,
        namespace,
        url,
        trust: 'untrusted',
        headersSealed: null,
        oauthClientId: null,
        oauthClientSecretSealed: null,
        timeoutMs: 5_000,
      }))!;
    // Two servers on the same protected resource (one under it): one sign-in serves both.
    const a = await add('a', fx.url);
    const b = await add('b', `${fx.url}/b`);
    const c = await add('c', fx.url);
    const ctx = context();
    const session = { userId: user.id, sessionId };
    const { authorizationUrl } = await startServerSignIn(ctx, session, a.id, '/servers');
    expect((await finishServerSignIn(ctx, session, await approveAt(authorizationUrl), async () => {})).ok).toBe(true);
    const signedIn = async (row: typeof a) => (await serverView(ctx, user.id, (await getServer(h.db, user.id, row.id))!)).signedIn;
    expect([await signedIn(b), await signedIn(c)]).toEqual([true, true]);
    const revocations = fx.counts.revocations;

    await removeServer(ctx, user.id, a.id);
    await editServer(ctx, user.id, b.id, { url: `${fx.origin}/elsewhere/mcp` });
    expect(await signedIn(c)).toBe(true);
    expect(fx.counts.revocations).toBe(revocations);

    // The last server using it: the credential is revoked at the provider and forgotten.
    await removeServer(ctx, user.id, c.id);
    expect(fx.counts.revocations).toBe(revocations + 2);
    expect(await h.db.select().from(oauthCredentials).where(eq(oauthCredentials.userId, user.id))).toEqual([]);
  });
});
