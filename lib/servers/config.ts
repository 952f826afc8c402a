import type { ServerRow } from '@/db/queries/servers';
import { sealedHeaders } from '@/db/stored-json';
import type { McpServerConfig } from '@/lib/mcp/types';
import type { SecretBox } from '@/lib/secrets/secret-box';

/** The stored header credentials, opened (empty when there are none). Throws if they cannot be opened. */
export function openHeaders(row: Pick<ServerRow, 'headersSealed'>, box: SecretBox): Record<string, string> {
  if (!row.headersSealed) return {};
  return sealedHeaders.parse(JSON.parse(box.open(row.headersSealed)));
}

/** How the gateway reaches a user-added server: its headers opened, its reviewed tools attached. */
export function serverConfig(row: ServerRow, box: SecretBox): McpServerConfig {
  const headers = openHeaders(row, box);
  return {
    id: row.id,
    namespace: row.namespace,
    displayName: row.name,
    url: row.url,
    trust: row.trust,
    trustContent: row.trustContent,
    timeoutMs: row.timeoutMs,
    ...(Object.keys(headers).length > 0 && { headers }),
    reviewedTools: row.reviewedTools,
  };
}
