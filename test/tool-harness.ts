import type { DbHandle } from '@/db/connection';
import type { ToolHost } from '@/lib/agent/tool-host';
import { staticGrants, type GrantSource, type ToolGrant } from '@/lib/consent/grant-source';
import { createMcpGateway } from '@/lib/mcp/gateway';
import type { McpServerConfig, Trust } from '@/lib/mcp/types';
import { loopbackFetch } from '@/test/loopback-fetch';

import { engineDeps } from './engine-harness';
import { startFixtureServer, type FixtureServer } from './fixtures/mcp-fixture-server';
import { startScriptedModel, type RecordedRequest, type ScriptedReply } from './fixtures/scripted-model';

export const FIXTURE_SERVER_ID = 'fixture-server';

/** The fixture server's config; unless a test says otherwise, a trusted one is trusted both ways (annotations and content). */
export function fixtureConfig(
  url: string,
  trust: Trust = 'trusted',
  timeoutMs = 5000,
  trustContent = trust === 'trusted',
): McpServerConfig {
  return { id: FIXTURE_SERVER_ID, namespace: 'fx', displayName: 'Fixture', url, trust, trustContent, timeoutMs };
}

/** The engine wired to a scripted model and the fixture MCP server, both real HTTP on 127.0.0.1. */
export async function toolEngine(
  h: DbHandle,
  opts: {
    script: (ScriptedReply | ((req: RecordedRequest) => ScriptedReply))[];
    trust?: Trust;
    /** Whether the fixture's content is trusted (default: as far as its annotations are). */
    trustContent?: boolean;
    timeoutMs?: number;
    grants?: Record<string, Partial<ToolGrant>>;
    /** Another grant source (e.g. the stored one); `grants` is then ignored. */
    grantSource?: GrantSource;
    instanceId?: string;
    fixture?: FixtureServer;
    /** Another MCP server to reach as the fixture's `fx` namespace (e.g. test/fixtures/url-step-server.ts). */
    serverUrl?: string;
  },
) {
  const fixture = opts.fixture ?? (await startFixtureServer());
  const model = await startScriptedModel(opts.script);
  const server = fixtureConfig(opts.serverUrl ?? fixture.url, opts.trust ?? 'trusted', opts.timeoutMs ?? 5000, opts.trustContent);
  const tools: ToolHost = {
    gateway: createMcpGateway({ fetch: loopbackFetch }),
    serversFor: async () => [server],
    grants: opts.grantSource ?? staticGrants(opts.grants ?? { [`${FIXTURE_SERVER_ID}/*`]: {} }),
  };
  const deps = engineDeps(h, { client: model.client, modelName: 'claude-test', tools, instanceId: opts.instanceId ?? 'test-instance' });
  return {
    deps,
    model,
    fixture,
    server,
    async close() {
      await model.close();
      if (!opts.fixture) await fixture.close();
    },
  };
}

export const toolUse = (id: string, name: string, input: Record<string, unknown> = {}) => ({ type: 'tool_use' as const, id, name, input });
export const text = (t: string) => ({ type: 'text' as const, text: t });
