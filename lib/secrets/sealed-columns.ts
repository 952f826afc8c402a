import { mcpServers, oauthCredentials, oauthFlows } from '@/db/schema';

import type { SealedColumn } from './rotate';

/**
 * Every column that holds SecretBox-sealed values: `npm run rotate-secrets` re-seals them all.
 * A new sealed column must be listed here.
 */
export const SEALED_COLUMNS: SealedColumn[] = [
  { label: 'mcp_servers.headers_sealed', table: mcpServers, id: mcpServers.id, value: mcpServers.headersSealed },
  { label: 'mcp_servers.oauth_client_secret_sealed', table: mcpServers, id: mcpServers.id, value: mcpServers.oauthClientSecretSealed },
  { label: 'oauth_credentials.client_info', table: oauthCredentials, id: oauthCredentials.id, value: oauthCredentials.clientInfo },
  { label: 'oauth_credentials.tokens', table: oauthCredentials, id: oauthCredentials.id, value: oauthCredentials.tokens },
  { label: 'oauth_flows.code_verifier', table: oauthFlows, id: oauthFlows.id, value: oauthFlows.codeVerifier },
];
