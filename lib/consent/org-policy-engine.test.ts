import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { createAuthSession } from '@/db/queries/auth-sessions';
import { listLiveGrants } from '@/db/queries/grants';
import { addMembership, insertOrg, setOrgPolicy } from '@/db/queries/orgs';
import { getRun } from '@/db/queries/runs';
import { listConversationToolCalls } from '@/db/queries/tool-calls';
import { findUserById } from '@/db/queries/users';
import { DEFAULT_ORG_POLICY, type StoredOrgPolicy } from '@/db/stored-json';
import { decideCall } from '@/lib/agent/decide';
import { startRun } from '@/lib/agent/engine';
import { toToolCallView } from '@/lib/agent/tool-call-view';
import { callExposedTool } from '@/lib/gateway/call';
import { approvalStateCodec } from '@/lib/gateway/elicit-approval';
import { orgPolicyMemo } from '@/lib/gateway/org-policies';
import { createGatewayTools } from '@/lib/gateway/service';
import { openTestDb, TEST_DATABASES } from '@/test/db';
import { userAndConversation } from '@/test/engine-harness';
import { startFixtureServer, type FixtureServer } from '@/test/fixtures/mcp-fixture-server';
import { FIXTURE_SERVER_ID, text, toolEngine, toolUse } from '@/test/tool-harness';

import { writeGrant } from './grant-writes';
import { toolScope } from './scopes';
import { storedGrants } from './stored-grants';

/**
 * The organization layer in the engine, on the app's stored grants and a real fixture server over
 * HTTP: a policy changed while a turn waits applies at its next step (the call is not run, the
 * model is told why, the tool is no longer offered); "never without asking for destructive tools"
 * makes an auto-approve grant ask and refuses "Allow for this session"; a grant older than the
 * longest the policy allows has ended.
 */

/** A stored value as text, its quotes unescaped, to look for a sentence in it. */
const said = (value: unknown) => JSON.stringify(value).replaceAll('\\"', '"');

for (const { kind, available } of TEST_DATABASES) {
  describe.skipIf(!available)(`organization policy in the engine on ${kind}`, () => {
    let h: DbHandle;
    let fixture: FixtureServer;
    beforeAll(async () => {
      h = await openTestDb(kind);
      fixture = await startFixtureServer({
        extraTools: [
          // No hints: the MCP spec reads a tool that does not say it only reads, or is not destructive, as destructive.
          { name: 'write', description: 'Writes a file.', inputSchema: { type: 'object' } },
        ],
      });
    });
    afterAll(async () => {
      await fixture?.close();
      await h?.close();
    });

    async function setup(
      script: Parameters<typeof toolEngine>[1]['script'],
      granted: { name: string; autoApprove?: boolean; createdAgoMs?: number }[],
    ) {
      const env = await toolEngine(h, { script, fixture, grantSource: storedGrants(h.db) });
      const { user, conversation } = await userAndConversation(h);
      const sessionId = `sid-${randomUUID()}`;
      await createAuthSession(h.db, { id: sessionId, userId: user.id, expiresAt: new Date(Date.now() + 3_600_000) });
      const owner = { userId: user.id, conversationId: conversation.id, sessionId };
      const catalog = await env.deps.tools!.gateway.listTools(env.server, { userId: user.id });
      for (const g of granted) {
        await writeGrant(h.db, {
          owner,
          scope: toolScope(FIXTURE_SERVER_ID, g.name),
          tools: catalog.tools.filter((t) => t.name === g.name),
          serverUrl: env.server.url,
          autoApprove: g.autoApprove === true,
          constraint: null,
          expiresIn: 'session',
          plan: 'pro',
          existing: await listLiveGrants(h.db, owner),
          now: new Date(Date.now() - (g.createdAgoMs ?? 0)),
        });
      }
      const org = await insertOrg(h.db, { name: 'Acme' });
      await addMembership(h.db, org.id, user.id, 'member');
      const setPolicy = (change: Partial<StoredOrgPolicy>) => setOrgPolicy(h.db, org.id, { ...DEFAULT_ORG_POLICY, ...change });
      const start = async () => {
        const { run } = await startRun(env.deps, { ...owner, text: 'go' });
        await env.deps.idle();
        return run.id;
      };
      const calls = () => listConversationToolCalls(h.db, conversation.id);
      return { env, user, start, calls, setPolicy };
    }

    it('a policy changed while a turn waits applies at its next step: the call is not run, the model is told why', async () => {
      const s = await setup(
        [{ blocks: [toolUse('tu_1', 'fx__counter', {})] }, { blocks: [text('It was not allowed.')] }],
        [{ name: 'counter' }, { name: 'echo' }],
      );
      const runId = await s.start();
      expect((await getRun(h.db, runId))!.status).toBe('awaiting_approval');
      expect(s.env.model.requests[0]!.body.tools!.map((t) => t.name)).toContain('fx__counter');

      await s.setPolicy({ tools: { allow: null, deny: ['fx__counter'] } });
      const [call] = await s.calls();
      await decideCall(s.env.deps, { userId: s.user.id, toolCallId: call!.id, decision: 'allow_once', argsHash: call!.argsHash });
      await s.env.deps.idle();

      expect((await getRun(h.db, runId))!.status).toBe('completed');
      const [after] = await s.calls();
      expect(after!.status).toBe('rejected');
      const why = 'Your organization "Acme" does not allow the tool "fx__counter".';
      expect(said(after!.result)).toContain(why);
      // The next step: the model hears why, and the tool is no longer offered; the rest still is.
      const next = s.env.model.requests[1]!.body;
      expect(said(next.messages.at(-1)!.content)).toContain(why);
      const offered = next.tools!.map((t) => t.name);
      expect(offered).not.toContain('fx__counter');
      expect(offered).toContain('fx__echo');
      await s.env.close();
    });

    it('never without asking for destructive tools: an auto-approve grant asks, with the reason; allow_session is refused', async () => {
      const script = () => [{ blocks: [toolUse('tu_1', 'fx__write', {})] }, { blocks: [text('done')] }];
      // Without the policy, the grant's auto-approve runs it (the table asks only for destructiveHint: true).
      const before = await setup(script(), [{ name: 'write', autoApprove: true }]);
      await before.start();
      expect((await before.calls())[0]).toMatchObject({ verdict: { verdict: 'auto' }, attempts: 1 });
      await before.env.close();

      const s = await setup(script(), [{ name: 'write', autoApprove: true }]);
      await s.setPolicy({ autoApprove: { allowed: true, neverFor: ['destructiveHint'] } });
      const runId = await s.start();
      expect((await getRun(h.db, runId))!.status).toBe('awaiting_approval');
      const [call] = await s.calls();
      expect(call).toMatchObject({
        status: 'pending_approval',
        verdict: {
          verdict: 'ask',
          reason: 'Your organization "Acme" does not allow tools that may be destructive to run without asking: every call asks.',
        },
      });
      // The card does not offer what the policy would refuse.
      expect(toToolCallView(call!).allowForSession).toEqual({ offered: false, why: expect.stringMatching(/^Your organization "Acme"/) });
      await expect(
        decideCall(s.env.deps, { userId: s.user.id, toolCallId: call!.id, decision: 'allow_session', argsHash: call!.argsHash }),
      ).rejects.toThrow(/allow_session" would not take effect: Your organization "Acme" does not allow tools that may be destructive/);
      await s.env.close();
    });

    it('auto-approve off: even a trusted read-only tool asks', async () => {
      const s = await setup([{ blocks: [toolUse('tu_1', 'fx__echo', { message: 'hi' })] }, { blocks: [text('ok')] }], [{ name: 'echo' }]);
      await s.setPolicy({ autoApprove: { allowed: false, neverFor: [] } });
      await s.start();
      expect((await s.calls())[0]).toMatchObject({
        status: 'pending_approval',
        verdict: { reason: expect.stringMatching(/every call asks/) },
      });
      await s.env.close();
    });

    it('auto-approve turned off while a step waits: its call that was to run without asking does not run unasked', async () => {
      // A asks (a grant without auto-approve), B runs without asking (a grant with it): the step waits on A.
      const s = await setup(
        [{ blocks: [toolUse('tu_a', 'fx__counter', {}), toolUse('tu_b', 'fx__write', {})] }, { blocks: [text('ok')] }],
        [{ name: 'counter' }, { name: 'write', autoApprove: true }],
      );
      const runId = await s.start();
      expect((await getRun(h.db, runId))!.status).toBe('awaiting_approval');
      const proposed = await s.calls();
      const a = proposed.find((c) => c.toolUseId === 'tu_a')!;
      expect(proposed.find((c) => c.toolUseId === 'tu_b')).toMatchObject({ status: 'auto_approved' });

      await s.setPolicy({ autoApprove: { allowed: false, neverFor: [] } });
      await decideCall(s.env.deps, { userId: s.user.id, toolCallId: a.id, decision: 'allow_once', argsHash: a.argsHash });
      await s.env.deps.idle();

      expect((await getRun(h.db, runId))!.status).toBe('completed');
      const after = await s.calls();
      // The person approved A: it runs. B was never asked about: it does not run, and the model is told why.
      expect(after.find((c) => c.toolUseId === 'tu_a')).toMatchObject({ status: 'succeeded', attempts: 1 });
      const b = after.find((c) => c.toolUseId === 'tu_b')!;
      expect(b).toMatchObject({ status: 'rejected', attempts: 0 });
      const why = 'Your organization "Acme" does not allow tools to run without asking: every call asks.';
      expect(b.verdict).toMatchObject({ verdict: 'reject', reason: expect.stringContaining(why) });
      expect(said(b.result)).toContain(why);
      expect(said(s.env.model.requests[1]!.body.messages.at(-1)!.content)).toContain(
        'fx__write was not run: it was to run without asking, and now every call of it asks.',
      );
      await s.env.close();
    });

    it('the /mcp gateway holds an MCP client of the member to the same policy', async () => {
      const s = await setup([], []);
      const echo = (await s.env.deps.tools!.gateway.listTools(s.env.server, { userId: s.user.id })).tools.find((t) => t.name === 'echo')!;
      const principal = {
        origin: 'http://localhost',
        userId: s.user.id,
        plan: 'pro',
        toolsRev: 0,
        client: { kind: 'access_token' as const, id: randomUUID(), name: 'ci' },
        profile: { v: 1 as const, tools: [] },
        tainted: null,
      };
      const stateKey = randomBytes(32);
      const orgPolicies = orgPolicyMemo(h.db);
      // As /mcp does: the person's tools_rev read with the token on each request (the policies are kept per value).
      const call = async () =>
        callExposedTool(
          {
            db: h.db,
            tools: s.env.deps.tools!,
            auditKeys: s.env.deps.auditKeys,
            bus: s.env.deps.bus,
            approvalWaitMs: 1_000,
            stateKey,
            stateCodec: approvalStateCodec(stateKey, 60),
            orgPolicies,
          },
          { ...principal, toolsRev: (await findUserById(h.db, s.user.id))!.toolsRev },
          { name: 'fx__echo', tool: echo, server: s.env.server },
          { message: 'hi' },
          new AbortController().signal,
        );
      expect((await call()).isError).toBeFalsy();
      await s.setPolicy({ tools: { allow: null, deny: ['fx'] } });
      expect(await call()).toMatchObject({
        isError: true,
        content: [{ text: 'fx__echo was not run: Your organization "Acme" does not allow the tool "fx__echo".' }],
      });
      await s.env.close();
    });

    it('the /mcp gateway does not list a tool the policy forbids to an MCP client of the member', async () => {
      const s = await setup([], []);
      const principal = {
        origin: 'http://localhost',
        userId: s.user.id,
        plan: 'pro',
        toolsRev: 0,
        client: { kind: 'access_token' as const, id: randomUUID(), name: 'ci' },
        profile: {
          v: 1 as const,
          tools: ['echo', 'counter'].map((tool) => ({ serverId: FIXTURE_SERVER_ID, tool, name: `fx__${tool}` })),
        },
        tainted: null,
      };
      const gateway = createGatewayTools({
        db: h.db,
        tools: s.env.deps.tools!,
        auditKeys: s.env.deps.auditKeys,
        bus: s.env.deps.bus,
        approvalWaitMs: 1_000,
        stateKey: randomBytes(32),
      });
      // As /mcp does: the person's tools_rev read with the token on each request.
      const current = async () => ({ ...principal, toolsRev: (await findUserById(h.db, s.user.id))!.toolsRev });
      const listed = async () => (await gateway.list(await current())).map((t) => t.name).sort();
      expect(await listed()).toEqual(['fx__counter', 'fx__echo']);
      await s.setPolicy({ tools: { allow: null, deny: ['fx__counter'] } });
      expect(await listed()).toEqual(['fx__echo']);
      // A client that calls it anyway is told the policy's reason, not that no such tool exists.
      expect(
        await gateway.call(await current(), 'fx__counter', {}, new AbortController().signal, {
          canElicit: false,
          inputResponses: undefined,
          approvalId: null,
        }),
      ).toMatchObject({
        isError: true,
        content: [{ text: 'fx__counter was not run: Your organization "Acme" does not allow the tool "fx__counter".' }],
      });
      await s.setPolicy({ tools: { allow: ['fx__counter'], deny: [] } });
      expect(await listed()).toEqual(['fx__counter']);
      await s.env.close();
    });

    it('a grant older than the longest the policy allows has ended, with the policy as the reason', async () => {
      const s = await setup(
        [{ blocks: [toolUse('tu_1', 'fx__counter', {})] }, { blocks: [text('ok')] }],
        [{ name: 'counter', createdAgoMs: 2 * 3_600_000 }],
      );
      await s.setPolicy({ maxGrant: '1h' });
      await s.start();
      expect(s.env.model.requests[0]!.body.tools?.map((t) => t.name) ?? []).not.toContain('fx__counter');
      expect((await s.calls())[0]).toMatchObject({ status: 'rejected' });
      expect(said(s.env.model.requests[1]!.body.messages.at(-1)!.content)).toMatch(
        /has ended: Your organization "Acme" does not allow grants longer than 1 hour/,
      );
      await s.env.close();
    });
  });
}
