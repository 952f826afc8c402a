import type Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { listMessages } from '@/db/queries/messages';
import { getRun } from '@/db/queries/runs';
import { listConversationToolCalls } from '@/db/queries/tool-calls';
import { constraintFor } from '@/lib/consent/constraints';
import type { ToolGrant } from '@/lib/consent/grant-source';
import { openTestDb, TEST_DATABASES } from '@/test/db';
import { userAndConversation } from '@/test/engine-harness';
import { startFixtureServer, type FixtureServer } from '@/test/fixtures/mcp-fixture-server';
import { text, toolEngine, toolUse } from '@/test/tool-harness';

import { argsHash } from './args-hash';
import { decideCall } from './decide';
import { startRun } from './engine';

/**
 * A tool's input schema may give a field a `default` and still list it as required (what zod's
 * JSON Schema output does, so Playwright MCP's tools look like this). The model may leave such a
 * field out: the default is filled in before the input is checked, and the filled input is the
 * one call everywhere — hashed, shown, checked against the grant, stored and sent.
 */

const SCREENSHOT_SCHEMA = {
  type: 'object' as const,
  properties: {
    scale: { type: 'string', enum: ['css', 'device'], default: 'css' },
    filename: { type: 'string', default: 'page.png' },
  },
  required: ['scale', 'filename'],
};

type Block = Anthropic.ContentBlockParam & Record<string, unknown>;

for (const { kind, available } of TEST_DATABASES) {
  describe.skipIf(!available)(`schema defaults in tool inputs on ${kind}`, () => {
    let h: DbHandle;
    let fixture: FixtureServer;
    beforeAll(async () => {
      h = await openTestDb(kind);
      fixture = await startFixtureServer({
        extraTools: [{ name: 'screenshot', description: 'Takes a screenshot.', inputSchema: SCREENSHOT_SCHEMA }],
      });
    });
    afterAll(async () => {
      await fixture?.close();
      await h?.close();
    });

    async function run(script: Parameters<typeof toolEngine>[1]['script'], grant: Partial<ToolGrant>) {
      const env = await toolEngine(h, { script, fixture, grants: { 'fixture-server/screenshot': grant } });
      const { user, conversation } = await userAndConversation(h);
      const { run } = await startRun(env.deps, { userId: user.id, conversationId: conversation.id, sessionId: null, text: 'go' });
      await env.deps.idle();
      return { env, user, conversation, runId: run.id, calls: () => listConversationToolCalls(h.db, conversation.id) };
    }

    it('a field left out is filled from its default: the filled input is hashed, stored and sent; the model’s own words stay', async () => {
      fixture.calls.length = 0;
      const s = await run([{ blocks: [toolUse('tu_1', 'fx__screenshot', {})] }, { blocks: [text('ok')] }], { autoApprove: true });
      const [call] = await s.calls();
      const filled = { scale: 'css', filename: 'page.png' };
      expect(call!.verdict?.verdict).toBe('auto');
      expect(call!.input).toEqual(filled);
      expect(call!.argsHash).toBe(argsHash(filled));
      expect(fixture.calls.map((c) => c.arguments)).toEqual([filled]);
      // The assistant message keeps what the model wrote: filling works on a copy.
      const assistant = (await listMessages(h.db, s.conversation.id)).find((m) => m.role === 'assistant')!;
      expect((assistant.content as Block[]).find((b) => b.type === 'tool_use')!.input).toEqual({});
      await s.env.close();
    });

    it('a grant’s constraint is checked against the filled input', async () => {
      fixture.calls.length = 0;
      const constraint = constraintFor({ kind: 'exact', field: 'scale', value: 'device' });
      const s = await run([{ blocks: [toolUse('tu_1', 'fx__screenshot', {})] }, { blocks: [text('ok')] }], {
        autoApprove: true,
        constraint,
      });
      const [call] = await s.calls();
      // Omitting `scale` does not slip past a constraint on it: the server would take "css".
      expect(call).toMatchObject({ status: 'rejected', input: { scale: 'css', filename: 'page.png' } });
      expect(call!.verdict!.reason).toMatch(/outside what the person's grant allows/);
      expect(fixture.calls).toEqual([]);
      await s.env.close();
    });

    it('edit-then-approve fills the edited input too; the same input with its defaults left out is no edit', async () => {
      fixture.calls.length = 0;
      const s = await run([{ blocks: [toolUse('tu_1', 'fx__screenshot', { scale: 'device' })] }, { blocks: [text('ok')] }], {});
      const [pending] = await s.calls();
      expect(pending).toMatchObject({ status: 'pending_approval', input: { scale: 'device', filename: 'page.png' } });

      // Sending back what the model sent (its defaults left out) decides the call as it stands.
      const same = await decideCall(s.env.deps, {
        userId: s.user.id,
        toolCallId: pending!.id,
        decision: 'allow_once',
        argsHash: pending!.argsHash,
        input: { scale: 'device' },
      });
      expect(same.toolCall.decision?.editedFrom).toBeUndefined();
      expect(same.toolCall.argsHash).toBe(pending!.argsHash);
      await s.env.deps.idle();
      expect((await getRun(h.db, s.runId))!.status).toBe('completed');
      await s.env.close();

      const t = await run([{ blocks: [toolUse('tu_2', 'fx__screenshot', { scale: 'device' })] }, { blocks: [text('ok')] }], {});
      const [second] = await t.calls();
      const edited = await decideCall(t.env.deps, {
        userId: t.user.id,
        toolCallId: second!.id,
        decision: 'allow_once',
        argsHash: second!.argsHash,
        input: { scale: 'css' },
      });
      const filled = { scale: 'css', filename: 'page.png' };
      expect(edited.toolCall).toMatchObject({ input: filled, argsHash: argsHash(filled), decision: { editedFrom: second!.argsHash } });
      await t.env.deps.idle();
      expect(fixture.calls.map((c) => c.arguments)).toEqual([{ scale: 'device', filename: 'page.png' }, filled]);
      await t.env.close();
    });
  });
}
