import { randomUUID } from 'node:crypto';
import Anthropic from '@anthropic-ai/sdk';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { createAuthSession } from '@/db/queries/auth-sessions';
import { createConversation } from '@/db/queries/conversations';
import { getRun } from '@/db/queries/runs';
import { getConversationTaint } from '@/db/queries/taint';
import { listConversationToolCalls } from '@/db/queries/tool-calls';
import { createUser } from '@/db/queries/users';
import { runs } from '@/db/schema';
import { getAuditKeyring } from '@/lib/audit/key';
import { staticGrants, type ToolGrant } from '@/lib/consent/grant-source';
import { setGrant } from '@/lib/consent/grants-service';
import { storedGrants } from '@/lib/consent/stored-grants';
import type { ConsentDeps } from '@/lib/consent/tools-view';
import { LimitExceeded } from '@/lib/limits';
import { createMcpGateway } from '@/lib/mcp/gateway';
import type { McpServerConfig } from '@/lib/mcp/types';
import { openTestDb, TEST_DATABASES } from '@/test/db';
import { engineDeps } from '@/test/engine-harness';
import { DOMAINS, startManyServers, TOOLS_PER_DOMAIN, type ManyServers } from '@/test/fixtures/many-servers';
import { startScriptedModel, type RecordedRequest, type ScriptedReply } from '@/test/fixtures/scripted-model';
import { loopbackFetch } from '@/test/loopback-fetch';
import { text, toolUse } from '@/test/tool-harness';

import { decideCall } from './decide';
import { driveRun } from './drive-run';
import { resumeLapsedRuns, startRun } from './engine';
import { SEARCH_TOOLS_TOOL_NAME } from './search-tools-tool';
import type { ToolSearchSettings } from './tool-budget';
import { offerTools, type ToolHost } from './tool-host';

type Block = Anthropic.ContentBlockParam & Record<string, unknown>;

const toolNames = (req: RecordedRequest) => (req.body.tools ?? []).map((t) => t.name);
/** The text of the tool_result answering `toolUseId` in the request's last message. */
function resultText(req: RecordedRequest, toolUseId: string): string {
  const block = (req.body.messages.at(-1)!.content as Block[]).find((b) => b.tool_use_id === toolUseId);
  return JSON.stringify(block?.content ?? null);
}

for (const { kind, available } of TEST_DATABASES) {
  // Every step lists 12 servers over HTTP: generous on a loaded machine.
  describe.skipIf(!available)(`tool search with 300 enabled tools on ${kind}`, { timeout: 90_000 }, () => {
    let h: DbHandle;
    let servers: ManyServers;
    let configs: McpServerConfig[];
    beforeAll(async () => {
      h = await openTestDb(kind);
      servers = await startManyServers();
      configs = servers.namespaces.map((ns) => ({
        id: `srv-${ns}`,
        namespace: ns,
        displayName: DOMAINS[ns]!.title,
        url: servers.urlOf(ns),
        trust: 'trusted',
        timeoutMs: 5000,
      }));
    });
    afterAll(async () => {
      await servers?.close();
      await h?.close();
    });

    /** Server-wide grants on every server (auto-approve unless told), minus `without`. */
    function hostWith(opts: { autoApprove?: boolean; without?: string[]; untrusted?: string[] } = {}): ToolHost {
      const grants: Record<string, Partial<ToolGrant>> = {};
      for (const c of configs) if (!opts.without?.includes(c.namespace)) grants[`${c.id}/*`] = { autoApprove: opts.autoApprove ?? true };
      const servers = configs.map((c) => (opts.untrusted?.includes(c.namespace) ? { ...c, trust: 'untrusted' as const } : c));
      return { gateway: createMcpGateway({ fetch: loopbackFetch }), serversFor: async () => servers, grants: staticGrants(grants) };
    }

    async function enterpriseConversation(plan: 'enterprise' | 'pro' = 'enterprise') {
      const user = await createUser(h.db, {
        email: `e-${Math.random().toString(36).slice(2)}@example.test`,
        passwordHash: 'x',
        plan,
      });
      const conversation = await createConversation(h.db, { userId: user!.id, model: 'claude-test' });
      return { user: user!, conversation };
    }

    async function engine(script: ScriptedReply[], opts: { tools?: ToolHost; instanceId?: string; toolSearch?: ToolSearchSettings } = {}) {
      const model = await startScriptedModel(script);
      const deps = engineDeps(h, {
        client: model.client,
        modelName: 'claude-test',
        tools: opts.tools ?? hostWith(),
        instanceId: opts.instanceId ?? 'test-instance',
        ...(opts.toolSearch && { toolSearch: opts.toolSearch }),
      });
      return { deps, model };
    }

    it("on the person's stored grants: enterprise switches on 12 servers (pro stops at 50 tools); search finds and runs", async () => {
      const gateway = createMcpGateway({ fetch: loopbackFetch });
      const host: ToolHost = { gateway, serversFor: async () => configs, grants: storedGrants(h.db) };
      const consent: ConsentDeps = {
        db: h.db,
        host,
        listAll: (s, caller) => gateway.listTools(s, caller),
        auditKeys: () => getAuditKeyring(),
      };
      async function signedIn(plan: 'enterprise' | 'pro') {
        const { user, conversation } = await enterpriseConversation(plan);
        const sessionId = `sid-${randomUUID()}`;
        await createAuthSession(h.db, { id: sessionId, userId: user.id, expiresAt: new Date(Date.now() + 3_600_000) });
        const switchOn = (c: McpServerConfig) =>
          setGrant(consent, {
            userId: user.id,
            sessionId,
            conversationId: conversation.id,
            scope: `server:${c.id}/*`,
            enabled: true,
            autoApprove: true,
          });
        return { user, conversation, sessionId, switchOn };
      }

      // A pro user may switch on 50 tools in a conversation: the third server of 25 is refused, naming the limit and the plan.
      const pro = await signedIn('pro');
      await pro.switchOn(configs[0]!);
      await pro.switchOn(configs[1]!);
      const refused = await pro.switchOn(configs[2]!).catch((err: unknown) => err);
      expect(refused).toBeInstanceOf(LimitExceeded);
      expect((refused as LimitExceeded).limit).toBe('enabledToolsPerConversation');
      expect((refused as LimitExceeded).message).toMatch(/pro plan/);

      const ent = await signedIn('enterprise');
      for (const c of configs) await ent.switchOn(c);
      const all = await offerTools(host, { userId: ent.user.id, conversationId: ent.conversation.id, sessionId: ent.sessionId });
      expect(all.tools).toHaveLength(12 * TOOLS_PER_DOMAIN);

      const { deps, model } = await engine(
        [
          { blocks: [toolUse('tu_search', SEARCH_TOOLS_TOOL_NAME, { query: 'notes__create_reminder' })] },
          { blocks: [toolUse('tu_call', 'notes__create_reminder', { title: 'Vet' })] },
          { blocks: [text('Reminder created.')] },
        ],
        { tools: host },
      );
      const { run } = await startRun(deps, {
        conversationId: ent.conversation.id,
        userId: ent.user.id,
        sessionId: ent.sessionId,
        text: 'call notes__create_reminder {"title": "Vet"}',
      });
      await deps.idle();
      expect(toolNames(model.requests[0]!).length).toBeLessThan(45);
      expect(toolNames(model.requests[1]!)).toContain('notes__create_reminder');
      expect(servers.calls).toContainEqual({ namespace: 'notes', name: 'create_reminder', arguments: { title: 'Vet' } });
      expect((await getRun(h.db, run.id))!.status).toBe('completed');
      await model.close();
    });

    it('offers the search tool instead of 300 tools; the search finds the named tool and it runs in the same turn', async () => {
      const { user, conversation } = await enterpriseConversation();
      const all = await offerTools(hostWith(), { userId: user.id, conversationId: conversation.id, sessionId: null });
      expect(all.tools).toHaveLength(12 * TOOLS_PER_DOMAIN);

      const { deps, model } = await engine([
        { blocks: [toolUse('tu_search', SEARCH_TOOLS_TOOL_NAME, { query: 'notes__create_reminder' })] },
        { blocks: [toolUse('tu_call', 'notes__create_reminder', { title: 'Dentist' })] },
        { blocks: [text('Reminder created.')] },
      ]);
      const { run } = await startRun(deps, {
        conversationId: conversation.id,
        userId: user.id,
        sessionId: null,
        text: 'call notes__create_reminder {"title": "Dentist"}',
      });
      await deps.idle();

      const [first, second, third] = model.requests;
      expect(toolNames(first!).length).toBeLessThan(45);
      expect(toolNames(first!)).toContain(SEARCH_TOOLS_TOOL_NAME);
      expect(toolNames(first!)).not.toContain('notes__create_reminder');
      // The answer names the tool and says it can be called now.
      const found = resultText(second!, 'tu_search');
      expect(found).toContain('notes__create_reminder');
      expect(found).toMatch(/can be called from your next step/);
      // The found tool is offered from the very next step, by the name the search gave.
      expect(toolNames(second!)).toContain('notes__create_reminder');
      expect(toolNames(second!).length).toBeLessThan(45);
      // It ran, in this turn, on the notes server, with the model's arguments.
      expect(servers.calls).toContainEqual({ namespace: 'notes', name: 'create_reminder', arguments: { title: 'Dentist' } });
      expect(resultText(third!, 'tu_call')).toContain('notes.create_reminder ran with');
      expect((await getRun(h.db, run.id))!.status).toBe('completed');
      const calls = await listConversationToolCalls(h.db, conversation.id);
      expect(calls.map((c) => [c.modelName, c.status, c.runId])).toEqual([
        [SEARCH_TOOLS_TOOL_NAME, 'succeeded', run.id],
        ['notes__create_reminder', 'succeeded', run.id],
      ]);
      expect(calls[0]!.foundTools?.tools[0]).toEqual({ serverId: 'srv-notes', tool: 'create_reminder' });
      expect(calls[0]!.verdict?.verdict).toBe('auto');

      // The next turn starts with the tool used recently, still under the budget.
      const next = await engine([{ blocks: [text('Anything else?')] }]);
      await startRun(next.deps, { conversationId: conversation.id, userId: user.id, sessionId: null, text: 'thanks' });
      await next.deps.idle();
      const names = toolNames(next.model.requests[0]!);
      expect(names).toEqual(expect.arrayContaining(['notes__create_reminder', SEARCH_TOOLS_TOOL_NAME]));
      expect(names.length).toBeLessThan(45);
      await Promise.all([model.close(), next.model.close()]);
    });

    it('keeps what it found across a pause for approval decided on another instance', async () => {
      const { user, conversation } = await enterpriseConversation();
      const tools = hostWith({ autoApprove: false });
      const { deps, model } = await engine(
        [
          { blocks: [toolUse('tu_search', SEARCH_TOOLS_TOOL_NAME, { query: 'delete a calendar invite', limit: 3 })] },
          { blocks: [toolUse('tu_del', 'calendar__delete_invite', { id: 'inv-1' })] },
          { blocks: [text('Deleted.')] },
        ],
        { tools },
      );
      const { run } = await startRun(deps, {
        conversationId: conversation.id,
        userId: user.id,
        sessionId: null,
        text: 'delete invite inv-1',
      });
      await deps.idle();
      expect((await getRun(h.db, run.id))!.status).toBe('awaiting_approval');
      const pending = (await listConversationToolCalls(h.db, conversation.id)).find((c) => c.status === 'pending_approval')!;
      expect(pending.tool).toBe('delete_invite');

      // Another instance, with nothing in memory, takes the decision and continues the run.
      const other = engineDeps(h, { client: model.client, modelName: 'claude-test', tools, instanceId: 'other-instance' });
      await decideCall(other, { userId: user.id, toolCallId: pending.id, decision: 'allow_once', argsHash: pending.argsHash });
      await other.idle();
      expect((await getRun(h.db, run.id))!.status).toBe('completed');
      expect(model.requests).toHaveLength(3);
      // A new step, run by the instance that took the decision: the found tools are still offered.
      expect(toolNames(model.requests[2]!)).toContain('calendar__delete_invite');
      expect(servers.calls).toContainEqual({ namespace: 'calendar', name: 'delete_invite', arguments: { id: 'inv-1' } });
      await model.close();
    });

    it('keeps what it found when another instance takes the run over after the lease lapsed', async () => {
      const { user, conversation } = await enterpriseConversation();
      // The first instance searches, then stalls in its next model request (it never answers).
      const first = await startScriptedModel([{ blocks: [toolUse('tu_search', SEARCH_TOOLS_TOOL_NAME, { query: 'create a rollback' })] }]);
      let stalled!: () => void;
      const stalledAt = new Promise<void>((resolve) => (stalled = resolve));
      let release!: (err: Error) => void;
      const stall = new Promise<never>((_, reject) => (release = reject));
      let sent = 0;
      const stallingClient = new Anthropic({
        apiKey: 'test-key',
        baseURL: first.url,
        maxRetries: 0,
        fetch: (url, init) => {
          // Only model calls count: the engine may also list models or count tokens through this client.
          if (!/\/v1\/messages$/.test(new URL(String(url)).pathname) || ++sent === 1) return fetch(url, init);
          stalled();
          return stall;
        },
      });
      const tools = hostWith();
      const doomed = engineDeps(h, { client: stallingClient, modelName: 'claude-test', tools, instanceId: 'doomed', heartbeatMs: 60_000 });
      const { run } = await startRun(doomed, { conversationId: conversation.id, userId: user.id, sessionId: null, text: 'roll back' });
      await stalledAt;
      await h.db
        .update(runs)
        .set({ leaseExpiresAt: new Date(0) })
        .where(eq(runs.id, run.id));

      // The rescuer has nothing in memory: what was found comes from the database.
      const { deps: rescuer, model } = await engine(
        [{ blocks: [toolUse('tu_rb', 'deploy__create_rollback', { title: 'v41' })] }, { blocks: [text('Rolled back.')] }],
        { tools, instanceId: 'rescuer' },
      );
      expect(await resumeLapsedRuns(rescuer, conversation.id)).toBe(1);
      // One process plays both instances, and a process drives a run once at a time: the stalled
      // instance must notice it lost the run (it writes nothing) before the rescuer can drive it here.
      release(new Error('connection reset'));
      await doomed.idle();
      // The stalled step stored nothing (a step is written with what it produced): the rescuer redoes step 2.
      expect((await getRun(h.db, run.id))!).toMatchObject({ status: 'running', leaseOwner: 'rescuer', step: 1 });
      await driveRun(rescuer, run.id);
      await rescuer.idle();
      expect((await getRun(h.db, run.id))!).toMatchObject({ status: 'completed', leaseOwner: null });
      expect(toolNames(model.requests[0]!)).toContain('deploy__create_rollback');
      expect(servers.calls).toContainEqual({ namespace: 'deploy', name: 'create_rollback', arguments: { title: 'v41' } });
      expect(model.requests).toHaveLength(2);
      await Promise.all([first.close(), model.close()]);
    });

    it('never finds a tool that is not enabled, and a call to it by name is rejected unrun', async () => {
      const { user, conversation } = await enterpriseConversation();
      const before = servers.calls.length;
      const { deps, model } = await engine(
        [
          { blocks: [toolUse('tu_search', SEARCH_TOOLS_TOOL_NAME, { query: 'notes__create_reminder' })] },
          { blocks: [toolUse('tu_call', 'notes__create_reminder', { title: 'x' })] },
          { blocks: [text('It is not available.')] },
        ],
        { tools: hostWith({ without: ['notes'] }) },
      );
      await startRun(deps, { conversationId: conversation.id, userId: user.id, sessionId: null, text: 'call notes__create_reminder' });
      await deps.idle();
      const answer = resultText(model.requests[1]!, 'tu_search');
      // Other servers' create tools match the word "create"; the notes server's tools are not there.
      expect(answer).toMatch(/- billing__create_/);
      expect(answer).not.toMatch(/- notes__/);
      expect(toolNames(model.requests[1]!).some((n) => n.startsWith('notes__'))).toBe(false);
      // The tool exists but is not switched on: the model is told so, not sent searching again.
      expect(resultText(model.requests[2]!, 'tu_call')).toMatch(
        /notes__create_reminder is not available in this conversation: It is not switched on in this conversation\. Only the person/,
      );
      expect(servers.calls.slice(before).some((c) => c.namespace === 'notes')).toBe(false);
      await model.close();
    });

    it('the demo model searches for a tool the person named that was not offered, and calls it on its next step', async () => {
      const { user, conversation } = await enterpriseConversation();
      const deps = engineDeps(h, { tools: hostWith(), instanceId: 'demo-instance' }); // no client: the offline demo model
      const { run } = await startRun(deps, {
        conversationId: conversation.id,
        userId: user.id,
        sessionId: null,
        text: 'call wiki__create_template {"title": "Runbook"}',
      });
      await deps.idle();
      expect((await getRun(h.db, run.id))!.status).toBe('completed');
      const calls = await listConversationToolCalls(h.db, conversation.id);
      expect(calls.map((c) => [c.modelName, c.status, c.step, c.runId])).toEqual([
        [SEARCH_TOOLS_TOOL_NAME, 'succeeded', 1, run.id],
        ['wiki__create_template', 'succeeded', 2, run.id],
      ]);
      expect(calls[0]!.input).toEqual({ query: 'wiki__create_template' });
      expect(servers.calls).toContainEqual({ namespace: 'wiki', name: 'create_template', arguments: { title: 'Runbook' } });
    });

    it('taints the conversation when a search quotes an untrusted server’s tool, before the model reads it', async () => {
      const { user, conversation } = await enterpriseConversation();
      const { deps, model } = await engine(
        [{ blocks: [toolUse('tu_search', SEARCH_TOOLS_TOOL_NAME, { query: 'snapshot of a volume' })] }, { blocks: [text('Found.')] }],
        { tools: hostWith({ untrusted: ['storage'] }) },
      );
      await startRun(deps, { conversationId: conversation.id, userId: user.id, sessionId: null, text: 'snapshots?' });
      await deps.idle();
      // The first step offered only the search tool: nothing untrusted had entered yet.
      expect(toolNames(model.requests[0]!)).toEqual([SEARCH_TOOLS_TOOL_NAME]);
      expect(resultText(model.requests[1]!, 'tu_search')).toContain('storage__create_snapshot');
      const [search] = await listConversationToolCalls(h.db, conversation.id);
      const taint = (await getConversationTaint(h.db, conversation.id))!;
      expect(taint).toMatchObject({ source: 'tool_description', serverId: 'srv-storage' });
      // Marked by the search itself, not only when the found tools were offered on the next step.
      expect(new Date(taint.at).getTime()).toBeLessThanOrEqual(search!.endedAt!.getTime());
      await model.close();
    });

    it('offers every enabled tool, and no search tool, while they fit the budget', async () => {
      const { user, conversation } = await enterpriseConversation();
      const { deps, model } = await engine([{ blocks: [text('Hello.')] }], {
        toolSearch: { maxTools: 300, maxTokens: 1_000_000, recentTools: 10 },
      });
      await startRun(deps, { conversationId: conversation.id, userId: user.id, sessionId: null, text: 'hi' });
      await deps.idle();
      const names = toolNames(model.requests[0]!);
      expect(names).toHaveLength(300);
      expect(names).not.toContain(SEARCH_TOOLS_TOOL_NAME);
      await model.close();
    });
  });
}
