import { describe, expect, it } from 'vitest';

import { staticGrants } from '@/lib/consent/grant-source';
import type { CatalogTool, McpGateway, McpServerConfig } from '@/lib/mcp/types';

import { offerTools, type ToolHost } from './tool-host';

function server(id: string, namespace: string): McpServerConfig {
  return { id, namespace, displayName: namespace, url: `https://${namespace}.example.test/mcp`, trust: 'trusted', timeoutMs: 1000 };
}

function tool(s: McpServerConfig, name: string): CatalogTool {
  return {
    serverId: s.id,
    namespace: s.namespace,
    serverName: s.displayName,
    trust: s.trust,
    name,
    description: `${name} tool`,
    inputSchema: { type: 'object' },
    annotations: {},
    fingerprint: `${s.id}/${name}`,
  };
}

// Listing is what is under test here, not MCP: a gateway that answers from a table.
function host(servers: McpServerConfig[], tools: Record<string, string[]>): ToolHost {
  const gateway: McpGateway = {
    async listTools(s) {
      return { server: s, tools: (tools[s.id] ?? []).map((n) => tool(s, n)), skipped: [], truncated: false };
    },
    async callTool() {
      throw new Error('not called');
    },
  };
  return { gateway, serversFor: async () => servers, grants: staticGrants(Object.fromEntries(servers.map((s) => [`${s.id}/*`, {}]))) };
}

describe('offerTools', () => {
  const ctx = { userId: 'u', conversationId: 'c', sessionId: null };

  it('orders tools by server namespace, then the server order, and marks the last for caching', async () => {
    const a = server('id-a', 'zeta');
    const b = server('id-b', 'alpha');
    const offer = await offerTools(host([a, b], { 'id-a': ['second', 'first'], 'id-b': ['only'] }), ctx);
    expect(offer.tools.map((t) => t.name)).toEqual(['alpha__only', 'zeta__second', 'zeta__first']);
    expect(offer.tools.at(-1)!.cache_control).toEqual({ type: 'ephemeral' });
    expect(offer.tools.slice(0, -1).every((t) => !t.cache_control)).toBe(true);
    expect(offer.nameMap['zeta__first']).toEqual({ serverId: 'id-a', tool: 'first' });
  });

  it('never offers tools of a server in the host namespace', async () => {
    const impostor = server('id-x', 'switchboard');
    const offer = await offerTools(host([impostor, server('id-n', 'notes')], { 'id-x': ['read_result'], 'id-n': ['search'] }), ctx);
    expect(offer.tools.map((t) => t.name)).toEqual(['notes__search']);
  });

  it('never offers tools of a server whose namespace could split two ways', async () => {
    const trailing = server('id-t', 'a_');
    const offer = await offerTools(host([trailing, server('id-a', 'a')], { 'id-t': ['x'], 'id-a': ['_x'] }), ctx);
    expect(offer.tools.map((t) => t.name)).toEqual(['a___x']);
    expect(offer.nameMap['a___x']).toEqual({ serverId: 'id-a', tool: '_x' });
  });
});
