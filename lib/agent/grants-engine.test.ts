import { randomUUID } from 'node:crypto';
import type Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { createAuthSession, endAuthSession } from '@/db/queries/auth-sessions';
import { listLiveGrants, revokeGrantOfScope, switchOff } from '@/db/queries/grants';
import { getRun } from '@/db/queries/runs';
import { insertToolCalls, listConversationToolCalls } from '@/db/queries/tool-calls';
import { constraintFor } from '@/lib/consent/constraints';
import { writeGrant } from '@/lib/consent/grant-writes';
import { toolScope } from '@/lib/consent/scopes';
import { storedGrants } from '@/lib/consent/stored-grants';
import { openTestDb, TEST_DATABASES } from '@/test/db';
import { userAndConversation } from '@/test/engine-harness';
import { startFixtureServer, type FixtureServer } from '@/test/fixtures/mcp-fixture-server';
import { FIXTURE_SERVER_ID, text, toolEngine, toolUse } from '@/test/tool-harness';

import { decideCall, DecisionError } from './decide';
import { startRun } from './engine';
import { toToolCallView } from './tool-call-view';

/**
 * The engine with the app's stored grants: "Allow for this session" writes the tool's grant and
 * the next call runs without a card; it is refused where it would not take effect; and a grant
 * that ends between the approval and the execution stops the call.
 */

type Block = Anthropic.ContentBlockParam & Record<string, unknown>;

for (const { kind, available } of TEST_DATABASES) {
  describe.skipIf(!available)(`grants in the engine on ${kind}`, () => {
    let h: DbHandle;
    let fixture: FixtureServer;
    beforeAll(async () => {
      h = await openTestDb(kind);
      fixture = await startFixtureServer({
        extraTools: [
          { name: 'wipe', description: 'Deletes everything.', inputSchema: { type: 'object' }, annotations: { destructiveHint: true } },
          {
            name: 'write',
            description: 'Writes a file.',
            inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
            annotations: { destructiveHint: false },
          },
        ],
      });
    });
    afterAll(async () => {
      await fixture?.close();
      await h?.close();
    });

    /** A signed-in user, a conversation, the engine on the stored grants, and the fixture's tools granted as asked. */
    async function setup(script: Parameters<typeof toolEngine>[1]['script'], granted: string[]) {
      const env = await toolEngine(h, { script, fixture, grantSource: storedGrants(h.db) });
      const { user, conversation } = await userAndConversation(h);
      const sessionId = `sid-${randomUUID()}`;
      await createAuthSession(h.db, { id: sessionId, userId: user.id, expiresAt: new Date(Date.now() + 3_600_000) });
      const owner = { userId: user.id, conversationId: conversation.id, sessionId };
      const catalog = await env.deps.tools!.gateway.listTools(env.server, { userId: user.id });
      for (const name of granted) {
        await writeGrant(h.db, {
          owner,
          scope: toolScope(FIXTURE_SERVER_ID, name),
          tools: catalog.tools.filter((t) => t.name === name),
          serverUrl: env.server.url,
          autoApprove: false,
          constraint: null,
          expiresIn: '12h',
          plan: 'pro',
          existing: await listLiveGrants(h.db, owner),
        });
      }
      const start = async (prompt = 'go') => {
        const { run } = await startRun(env.deps, { ...owner, text: prompt });
        await env.deps.idle();
        return run.id;
      };
      const calls = () => listConversationToolCalls(h.db, conversation.id);
      return { env, user, conversation, sessionId, owner, start, calls };
    }

    it('only granted tools are offered, and a call to one not offered is rejected, the model told why', async () => {
      const s = await setup([{ blocks: [toolUse('tu_1', 'fx__echo', { message: 'hi' })] }, { blocks: [text('ok')] }], ['counter']);
      await s.start();
      const offered = s.env.model.requests[0]!.body.tools!.map((t) => t.name);
      expect(offered).toContain('fx__counter');
      expect(offered).not.toContain('fx__echo');
      const [call] = await s.calls();
      expect(call).toMatchObject({
        status: 'rejected',
        verdict: { reason: 'It is not switched on in this conversation.' },
      });
      // The model hears that the tool exists but is off, and that only the person can switch it on.
      expect(JSON.stringify(s.env.model.requests[1]!.body.messages.at(-1)!.content)).toMatch(
        /fx__echo is not available in this conversation: It is not switched on in this conversation\. Only the person can switch tools on/,
      );
      await s.env.close();
    });

    it('"Allow for this session" writes the grant with auto-approve, and the next call runs without a card', async () => {
      const s = await setup(
        [
          { blocks: [toolUse('tu_1', 'fx__counter', {})] },
          { blocks: [toolUse('tu_2', 'fx__counter', {})] },
          { blocks: [text('Counted twice.')] },
        ],
        ['counter'],
      );
      const runId = await s.start();
      expect((await getRun(h.db, runId))!.status).toBe('awaiting_approval');
      const [first] = await s.calls();
      expect(toToolCallView(first!).allowForSession).toEqual({ offered: true, why: null });
      const before = (await listLiveGrants(h.db, s.owner))[0]!;

      await decideCall(s.env.deps, { userId: s.user.id, toolCallId: first!.id, decision: 'allow_session', argsHash: first!.argsHash });
      await s.env.deps.idle();
      expect((await getRun(h.db, runId))!.status).toBe('completed');
      const [, second] = await s.calls();
      expect(second).toMatchObject({ status: 'succeeded', decision: null, verdict: { verdict: 'auto' } });
      expect(second!.verdict!.reason).toMatch(/allowed this tool to run without asking/);

      const [grant] = await listLiveGrants(h.db, s.owner);
      expect(grant).toMatchObject({ scope: 'tool:fixture-server/counter', autoApprove: true, sessionId: s.sessionId, expiresIn: '12h' });
      expect(grant!.expiresAt).toEqual(before.expiresAt); // the grant's end is kept, not extended
      expect(second!.verdict!.grantId).toBe(grant!.id);
      await s.env.close();
    });

    it('"Allow for this session" with a constraint: later calls outside it are rejected', async () => {
      const constraint = constraintFor({ kind: 'path_prefix', field: 'path', prefix: '/tmp/' });
      const s = await setup(
        [
          { blocks: [toolUse('tu_1', 'fx__write', { path: '/tmp/a' })] },
          { blocks: [toolUse('tu_2', 'fx__write', { path: '/tmp/b' }), toolUse('tu_3', 'fx__write', { path: '/tmp/../etc/passwd' })] },
          { blocks: [text('done')] },
        ],
        ['write'],
      );
      const runId = await s.start();
      const [first] = await s.calls();
      expect(first!.status).toBe('pending_approval');
      // A constraint must allow the very call being approved.
      await expect(
        decideCall(s.env.deps, {
          userId: s.user.id,
          toolCallId: first!.id,
          decision: 'allow_session',
          argsHash: first!.argsHash,
          constraint: constraintFor({ kind: 'exact', field: 'path', value: '/elsewhere' }),
        }),
      ).rejects.toMatchObject({ field: 'constraint', message: expect.stringMatching(/own arguments do not meet it/) });
      await decideCall(s.env.deps, {
        userId: s.user.id,
        toolCallId: first!.id,
        decision: 'allow_session',
        argsHash: first!.argsHash,
        constraint,
      });
      await s.env.deps.idle();
      expect((await getRun(h.db, runId))!.status).toBe('completed');
      const calls = await s.calls();
      // The fixture answers an extra tool with an error result: what matters is which calls reached it.
      expect(calls.map((c) => [c.toolUseId, c.status])).toEqual([
        ['tu_1', 'errored'],
        ['tu_2', 'errored'],
        ['tu_3', 'rejected'],
      ]);
      expect(fixture.calls.filter((c) => c.name === 'write').map((c) => c.arguments.path)).toEqual(['/tmp/a', '/tmp/b']);
      expect(calls[1]!.decision).toBeNull(); // no card
      expect(calls[2]!.verdict!.reason).toMatch(/outside what the person's grant allows/);
      expect((await listLiveGrants(h.db, s.owner))[0]).toMatchObject({ autoApprove: true, constraint });
      await s.env.close();
    });

    it('a path prefix is compared after normalising: encoded dots and sibling folders are refused, with the reason', async () => {
      const s = await setup(
        [
          {
            blocks: [
              toolUse('tu_1', 'fx__write', { path: '/notes/a.md' }),
              toolUse('tu_2', 'fx__write', { path: '/notes-private/secret.md' }),
              toolUse('tu_3', 'fx__write', { path: '/notes/%2e%2e/%2E%2E/etc/passwd' }),
              toolUse('tu_4', 'fx__write', { path: '/notes/x\\..\\..\\etc' }),
              toolUse('tu_5', 'fx__write', { path: '/notes' }),
            ],
          },
          { blocks: [text('done')] },
        ],
        [],
      );
      const catalog = await s.env.deps.tools!.gateway.listTools(s.env.server, { userId: s.user.id });
      await writeGrant(h.db, {
        owner: s.owner,
        scope: toolScope(FIXTURE_SERVER_ID, 'write'),
        tools: catalog.tools.filter((t) => t.name === 'write'),
        serverUrl: s.env.server.url,
        autoApprove: true,
        constraint: constraintFor({ kind: 'path_prefix', field: 'path', prefix: '/notes' }),
        expiresIn: '12h',
        plan: 'pro',
        existing: await listLiveGrants(h.db, s.owner),
      });
      await s.start();
      await s.env.deps.idle();
      const calls = await s.calls();
      expect(calls.map((c) => c.status)).toEqual(['errored', 'rejected', 'rejected', 'rejected', 'errored']);
      expect(fixture.calls.filter((c) => c.name === 'write').map((c) => c.arguments.path)).toEqual(
        expect.arrayContaining(['/notes/a.md', '/notes']),
      );
      expect(fixture.calls.map((c) => c.arguments.path)).not.toContain('/notes-private/secret.md');
      expect(calls[1]!.verdict!.reason).toMatch(/path: "\/notes-private\/secret\.md" is not \/notes or under \/notes\//);
      expect(calls[2]!.verdict!.reason).toMatch(/encoded dot, slash, backslash or percent sign/);
      expect(calls[3]!.verdict!.reason).toMatch(/encoded dot, slash, backslash or percent sign/);
      await s.env.close();
    });

    it('is refused, naming the field, where it would not take effect (destructive, tainted, bad constraint)', async () => {
      const s = await setup(
        [{ blocks: [toolUse('tu_1', 'fx__wipe', {}), toolUse('tu_2', 'fx__counter', {})] }, { blocks: [text('ok')] }],
        ['wipe', 'counter'],
      );
      await s.start();
      const [wipe, counter] = await s.calls();
      expect(wipe!.status).toBe('pending_approval');
      expect(toToolCallView(wipe!).allowForSession).toEqual({ offered: false, why: expect.stringMatching(/destructive/) });
      const refused = decideCall(s.env.deps, {
        userId: s.user.id,
        toolCallId: wipe!.id,
        decision: 'allow_session',
        argsHash: wipe!.argsHash,
      });
      await expect(refused).rejects.toBeInstanceOf(DecisionError);
      await expect(refused).rejects.toMatchObject({
        kind: 'invalid',
        field: 'decision',
        message: expect.stringMatching(/destructive.*allow_once/),
      });

      const badConstraint = { type: 'object', properties: { n: { const: 1 } }, required: ['n'] };
      await expect(
        decideCall(s.env.deps, {
          userId: s.user.id,
          toolCallId: counter!.id,
          decision: 'allow_session',
          argsHash: counter!.argsHash,
          constraint: badConstraint,
        }),
      ).rejects.toMatchObject({ field: 'constraint', message: expect.stringMatching(/no argument "n"; it takes no arguments/) });
      await expect(
        decideCall(s.env.deps, {
          userId: s.user.id,
          toolCallId: counter!.id,
          decision: 'allow_once',
          argsHash: counter!.argsHash,
          constraint: { type: 'object' },
        }),
      ).rejects.toMatchObject({ field: 'constraint' });

      // Untrusted text enters the conversation: auto-approval would not cover a write any more.
      await insertToolCalls(h.db, [
        {
          runId: counter!.runId,
          conversationId: s.conversation.id,
          userId: s.user.id,
          step: 0,
          position: 9,
          toolUseId: 'tu_untrusted',
          modelName: 'web__fetch',
          input: {},
          argsHash: '0'.repeat(64),
          trust: 'untrusted',
          status: 'succeeded',
        },
      ]);
      await expect(
        decideCall(s.env.deps, { userId: s.user.id, toolCallId: counter!.id, decision: 'allow_session', argsHash: counter!.argsHash }),
      ).rejects.toMatchObject({ field: 'decision', message: expect.stringMatching(/content you do not trust/) });
      // Nothing was decided, and no grant changed.
      expect((await s.calls()).slice(0, 2).map((c) => c.status)).toEqual(['pending_approval', 'pending_approval']);
      expect((await listLiveGrants(h.db, s.owner)).every((g) => !g.autoApprove)).toBe(true);
      await s.env.close();
    });

    it('a grant revoked between the approval and the execution: the call is not run, and the model is told why', async () => {
      const s = await setup([{ blocks: [toolUse('tu_1', 'fx__counter', {})] }, { blocks: [text('ok')] }], ['counter']);
      const runId = await s.start();
      const [call] = await s.calls();
      expect(call!.status).toBe('pending_approval');
      const ranBefore = fixture.calls.filter((c) => c.name === 'counter').length;
      await revokeGrantOfScope(h.db, s.owner, toolScope(FIXTURE_SERVER_ID, 'counter'), 'revoked');

      await decideCall(s.env.deps, { userId: s.user.id, toolCallId: call!.id, decision: 'allow_once', argsHash: call!.argsHash });
      await s.env.deps.idle();
      expect((await getRun(h.db, runId))!.status).toBe('completed');
      const [after] = await s.calls();
      expect(after).toMatchObject({ status: 'rejected', isError: true, verdict: { verdict: 'reject' } });
      expect(fixture.calls.filter((c) => c.name === 'counter')).toHaveLength(ranBefore);
      const results = s.env.model.requests[1]!.body.messages.at(-1)!.content as Block[];
      expect(JSON.stringify(results[0]!.content)).toMatch(
        /fx__counter was not run: it is no longer available in this conversation\. It is not switched on/,
      );
      await s.env.close();
    });

    it('a session that signed out, or a tool switched off, after approval: not run either', async () => {
      for (const end of ['sign-out', 'switch-off'] as const) {
        const s = await setup([{ blocks: [toolUse('tu_1', 'fx__counter', {})] }, { blocks: [text('ok')] }], ['counter']);
        await s.start();
        const [call] = await s.calls();
        if (end === 'sign-out') await endAuthSession(h.db, s.sessionId);
        else await switchOff(h.db, { userId: s.user.id, conversationId: s.conversation.id, serverId: FIXTURE_SERVER_ID, tool: 'counter' });
        await decideCall(s.env.deps, { userId: s.user.id, toolCallId: call!.id, decision: 'allow_once', argsHash: call!.argsHash });
        await s.env.deps.idle();
        const [after] = await s.calls();
        expect(after!.status, end).toBe('rejected');
        expect(after!.verdict!.reason, end).toMatch(end === 'sign-out' ? /signed out/ : /switched it off/);
        await s.env.close();
      }
    });
  });
}
