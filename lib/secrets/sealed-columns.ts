import { mcpServers } from '@/db/schema';

import type { SealedColumn } from './rotate';

/**
 * Every column that holds SecretBox-sealed values: `npm run rotate-secrets` re-seals them all.
 * A new sealed column must be listed here.
 */
export const SEALED_COLUMNS: SealedColumn[] = [
  { label: 'mcp_servers.headers_sealed', table: mcpServers, id: mcpServers.id, value: mcpServers.headersSealed },
  { label: 'mcp_servers.oauth_client_secret_sealed', table: mcpServers, id: mcpServers.id, value: mcpServers.oauthClientSecretSealed },
];
