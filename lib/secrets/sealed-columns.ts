import { mcpServers, oauthCredentials, oauthFlows, orgServers } from '@/db/schema';

import type { SealedColumn } from './rotate';
import { credentialSecretContext, flowSecretContext, orgServerSecretContext, serverSecretContext } from './seal-contexts';

const serverKeys = { id: mcpServers.id, userId: mcpServers.userId };
const credentialKeys = { userId: oauthCredentials.userId, issuer: oauthCredentials.issuer, resource: oauthCredentials.resource };

/**
 * Every column that holds SecretBox-sealed values, with the context its values are bound to
 * (lib/secrets/seal-contexts.ts): `npm run rotate-secrets` re-seals them all. A new sealed
 * column must be listed here.
 */
export const SEALED_COLUMNS: SealedColumn[] = [
  column({
    label: 'mcp_servers.headers_sealed',
    table: mcpServers,
    id: mcpServers.id,
    value: mcpServers.headersSealed,
    keys: serverKeys,
    context: (row) => serverSecretContext('headers_sealed', row),
  }),
  column({
    label: 'mcp_servers.oauth_client_secret_sealed',
    table: mcpServers,
    id: mcpServers.id,
    value: mcpServers.oauthClientSecretSealed,
    keys: serverKeys,
    context: (row) => serverSecretContext('oauth_client_secret_sealed', row),
  }),
  column({
    label: 'oauth_credentials.client_info',
    table: oauthCredentials,
    id: oauthCredentials.id,
    value: oauthCredentials.clientInfo,
    keys: credentialKeys,
    context: (row) => credentialSecretContext('client_info', row),
  }),
  column({
    label: 'oauth_credentials.tokens',
    table: oauthCredentials,
    id: oauthCredentials.id,
    value: oauthCredentials.tokens,
    keys: credentialKeys,
    context: (row) => credentialSecretContext('tokens', row),
  }),
  column({
    label: 'oauth_flows.code_verifier',
    table: oauthFlows,
    id: oauthFlows.id,
    value: oauthFlows.codeVerifier,
    keys: { id: oauthFlows.id, userId: oauthFlows.userId },
    context: (row) => flowSecretContext(row),
  }),
  column({
    label: 'org_servers.headers_sealed',
    table: orgServers,
    id: orgServers.id,
    value: orgServers.headersSealed,
    keys: { id: orgServers.id, orgId: orgServers.orgId },
    context: (row) => orgServerSecretContext(row),
  }),
];

/** Checks a column's context against its key names (the list above holds them erased). */
function column<K extends string>(spec: SealedColumn<K>): SealedColumn {
  return spec;
}
