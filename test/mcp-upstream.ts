import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

import type { Db } from '@/db/connection';
import { enableServer, insertServer } from '@/db/queries/servers';
import type { Trust } from '@/db/vocabulary';
import { buildServerCatalog, type RawTool } from '@/lib/mcp/catalog';

/** The tools an upstream MCP server lists, asked once by a plain client: what a catalog is built from. */
export async function listUpstreamTools(url: string): Promise<RawTool[]> {
  const probe = new Client({ name: 'probe', version: '1.0.0' });
  await probe.connect(new StreamableHTTPClientTransport(new URL(url)));
  const { tools } = await probe.listTools();
  await probe.close();
  return tools as RawTool[];
}

/**
 * A server `userId` added at `url` (timeout 5 s, no headers, no OAuth), switched on with every one
 * of `tools` reviewed, as if the person had looked at them; returns its id.
 */
export async function addReviewedServer(
  db: Db,
  userId: string,
  server: { name: string; namespace: string; url: string; trust: Trust; tools: RawTool[] },
): Promise<string> {
  const { name, namespace, url, trust } = server;
  const row = (await insertServer(db, userId, {
    name,
    namespace,
    url,
    trust,
    headersSealed: null,
    oauthClientId: null,
    oauthClientSecretSealed: null,
    timeoutMs: 5000,
  }))!;
  const catalog = buildServerCatalog({ id: row.id, namespace, displayName: name, url, trust, timeoutMs: 5000 }, server.tools);
  await enableServer(db, userId, row.id, Object.fromEntries(catalog.tools.map((t) => [t.name, t.fingerprint])));
  return row.id;
}
