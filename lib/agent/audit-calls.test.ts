import { createHash, randomUUID } from 'node:crypto';
import canonicalize from 'canonicalize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { listActivity } from '@/db/queries/audit';
import { createAuthSession } from '@/db/queries/auth-sessions';
import { deleteConversation } from '@/db/queries/conversations';
import { listConversationToolCalls, type ToolCallRow } from '@/db/queries/tool-calls';
import type { StoredAuditToolCall } from '@/db/stored-json';
import { getAuditKeyring } from '@/lib/audit/key';
import { verifyChain } from '@/lib/audit/verify';
import { openTestDb, TEST_DATABASES } from '@/test/db';
import { userAndConversation } from '@/test/engine-harness';
import { text, toolEngine, toolUse } from '@/test/tool-harness';

import { decideCall } from './decide';
import { cancelRun, startRun } from './engine';

/**
 * The engine writes one audit entry per call at its end, whatever the end: auto, allowed,
 * edited, denied, rejected, cancelled — with the verdict's rule, who decided, the exact and the
 * edited arguments, the outcome and a digest of the result.
 */
for (const { kind, available } of TEST_DATABASES) {
  describe.skipIf(!available)(`audit entries from the engine on ${kind}`, () => {
    let h: DbHandle;
    beforeAll(async () => {
      h = await openTestDb(kind);
    });
    afterAll(async () => h?.close());

    async function start(env: Awaited<ReturnType<typeof toolEngine>>) {
      const { user, conversation } = await userAndConversation(h);
      const { run } = await startRun(env.deps, { conversationId: conversation.id, userId: user.id, sessionId: null, text: 'go' });
      await env.deps.idle();
      return { user, conversation, runId: run.id };
    }

    async function entriesOf(userId: string): Promise<StoredAuditToolCall[]> {
      const rows = await listActivity(h.db, userId, {}, 100);
      return rows.reverse().flatMap((r) => (r.content.kind === 'tool_call' ? [r.content] : []));
    }

    const digest = (call: ToolCallRow) => createHash('sha256').update(canonicalize(call.result)!).digest('hex');

    // The conversation's title at the time is copied (the first message names it: "go").
    it('logs an auto-approved call with the rule that allowed it, the outcome, the duration and the result digest', async () => {
      const env = await toolEngine(h, { script: [{ blocks: [toolUse('tu_a', 'fx__echo', { message: 'hi' })] }, { blocks: [text('ok')] }] });
      const { user, conversation } = await start(env);
      const [call] = await listConversationToolCalls(h.db, conversation.id);
      const [entry] = await entriesOf(user.id);
      expect(entry).toMatchObject({
        toolCallId: call!.id,
        conversation: { id: conversation.id, title: 'go' },
        server: { id: 'fixture-server', name: 'Fixture' },
        tool: 'echo',
        modelName: 'fx__echo',
        trust: 'trusted',
        arguments: { proposed: { message: 'hi' }, executed: { message: 'hi' }, edited: false, proposedHash: call!.argsHash },
        verdict: { kind: 'auto', rule: 'A trusted server marks this tool as read-only.', by: null, decision: null },
        outcome: 'succeeded',
        attempts: 1,
        result: { isError: false, sha256: digest(call!), bytes: Buffer.byteLength(canonicalize(call!.result)!) },
      });
      expect(entry!.timing.durationMs).toBeGreaterThanOrEqual(0);
      expect(entry!.timing.startedAt).not.toBeNull();
      await env.close();
    });

    it('logs an allowed call with who allowed it, and an edited one with both the proposed and the executed arguments', async () => {
      const env = await toolEngine(h, {
        trust: 'untrusted',
        script: [
          { blocks: [toolUse('tu_c', 'fx__counter'), toolUse('tu_e', 'fx__lying_readonly', { value: 'asked' })] },
          { blocks: [text('ok')] },
        ],
      });
      const { user, conversation } = await start(env);
      const [counter, lying] = await listConversationToolCalls(h.db, conversation.id);
      await decideCall(env.deps, { userId: user.id, toolCallId: counter!.id, argsHash: counter!.argsHash, decision: 'allow_once' });
      await decideCall(env.deps, {
        userId: user.id,
        toolCallId: lying!.id,
        argsHash: lying!.argsHash,
        decision: 'allow_once',
        input: { value: 'edited' },
      });
      await env.deps.idle();
      const entries = await entriesOf(user.id);
      const byTool = new Map(entries.map((e) => [e.tool, e]));
      expect(byTool.get('counter')).toMatchObject({
        // The untrusted server's tool descriptions were offered to the model: the turn is tainted from its first step.
        verdict: {
          kind: 'allowed',
          by: user.id,
          decision: 'allow_once',
          // The untrusted server's tool descriptions entered the context with the offer: the conversation is tainted.
          rule: expect.stringMatching(/^The conversation holds content from "[^"]+", which could steer the model; /),
        },
        arguments: { edited: false },
        outcome: 'succeeded',
      });
      const edited = byTool.get('lying_readonly')!;
      expect(edited).toMatchObject({
        verdict: { kind: 'allowed', by: user.id, decision: 'allow_once' },
        arguments: { proposed: { value: 'asked' }, executed: { value: 'edited' }, edited: true, proposedHash: lying!.argsHash },
        outcome: 'succeeded',
      });
      expect(edited.arguments.executedHash).not.toBe(lying!.argsHash);
      expect(env.fixture.state.writes).toEqual(['edited']);
      await env.close();
    });

    it('logs "Allow for this session": the call as allowed for the session, and the grant it wrote', async () => {
      // A trusted server: an untrusted one's tool descriptions taint the conversation, and then
      // "Allow for this session" is refused for a tool that writes (lib/consent/auto-approve.ts).
      const env = await toolEngine(h, {
        script: [{ blocks: [toolUse('tu_s', 'fx__counter')] }, { blocks: [text('ok')] }],
      });
      const { user, conversation } = await userAndConversation(h);
      const sid = `sid-${randomUUID()}`;
      await createAuthSession(h.db, { id: sid, userId: user.id, expiresAt: new Date(Date.now() + 3_600_000) });
      await startRun(env.deps, { conversationId: conversation.id, userId: user.id, sessionId: sid, text: 'go' });
      await env.deps.idle();
      const [call] = await listConversationToolCalls(h.db, conversation.id);
      await decideCall(env.deps, { userId: user.id, toolCallId: call!.id, argsHash: call!.argsHash, decision: 'allow_session' });
      await env.deps.idle();
      const rows = (await listActivity(h.db, user.id, {}, 10)).reverse().map((r) => r.content);
      expect(rows.map((c) => (c.kind === 'grant' ? `grant:${c.change}` : `call:${c.outcome}`))).toEqual([
        'grant:created',
        'call:succeeded',
      ]);
      expect(rows[0]).toMatchObject({ scope: 'tool:fixture-server/counter', by: user.id, sessionId: sid, settings: { autoApprove: true } });
      expect(rows[1]).toMatchObject({ verdict: { kind: 'allowed', decision: 'allow_session', by: user.id } });
      await env.close();
    });

    it('logs a denied call with the reason and who denied it', async () => {
      const env = await toolEngine(h, { script: [{ blocks: [toolUse('tu_d', 'fx__counter')] }, { blocks: [text('ok')] }] });
      const { user, conversation } = await start(env);
      const [call] = await listConversationToolCalls(h.db, conversation.id);
      await decideCall(env.deps, {
        userId: user.id,
        toolCallId: call!.id,
        argsHash: call!.argsHash,
        decision: 'deny',
        reason: 'not today',
      });
      await env.deps.idle();
      const [entry] = await entriesOf(user.id);
      expect(entry).toMatchObject({
        verdict: { kind: 'denied', by: user.id, decision: 'deny', reason: 'not today' },
        outcome: 'denied',
        timing: { startedAt: null, durationMs: null },
        result: { isError: true },
      });
      await env.close();
    });

    it('logs rejected calls (not offered, invalid input) with why, in the step that proposed them', async () => {
      const env = await toolEngine(h, {
        script: [{ blocks: [toolUse('tu_n', 'fx__nope'), toolUse('tu_s', 'fx__slow', { ms: 'soon' })] }, { blocks: [text('ok')] }],
      });
      const { user } = await start(env);
      const entries = await entriesOf(user.id);
      expect(entries.map((e) => [e.modelName, e.outcome, e.verdict.kind, e.verdict.rule])).toEqual([
        ['fx__nope', 'rejected', 'rejected', 'No tool by this name was offered.'],
        ['fx__slow', 'rejected', 'rejected', 'The input does not match the tool schema.'],
      ]);
      expect(entries[0]!.server).toEqual({ id: null, name: null });
      expect(entries[1]!.arguments.proposed).toEqual({ ms: 'soon' });
      await env.close();
    });

    it('logs a call still waiting for the person when the run is stopped as cancelled and undecided', async () => {
      const env = await toolEngine(h, { script: [{ blocks: [toolUse('tu_x', 'fx__counter')] }, { blocks: [text('never')] }] });
      const { user, conversation } = await start(env);
      await cancelRun(env.deps, conversation.id);
      await env.deps.idle();
      const [entry] = await entriesOf(user.id);
      expect(entry).toMatchObject({ outcome: 'cancelled', verdict: { kind: 'undecided', rule: expect.any(String) } });
      await env.close();
    });

    it('keeps the entries, with their own copies, when the conversation is deleted; the chain verifies', async () => {
      const env = await toolEngine(h, {
        script: [{ blocks: [toolUse('tu_k', 'fx__echo', { message: 'keep' })] }, { blocks: [text('ok')] }],
      });
      const { user, conversation } = await start(env);
      await deleteConversation(h.db, user.id, conversation.id);
      const [entry] = await entriesOf(user.id);
      expect(entry).toMatchObject({
        conversation: { id: conversation.id, title: 'go' },
        server: { name: 'Fixture' },
        tool: 'echo',
      });
      expect(await verifyChain(h.db, await getAuditKeyring(), user.id)).toMatchObject({ ok: true, checked: 1 });
      await env.close();
    });
  });
}
