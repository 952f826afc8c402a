import type { ServerRow } from '@/db/queries/servers';
import { sealedHeaders } from '@/db/stored-json';
import type { McpServerConfig } from '@/lib/mcp/types';
import { orgServerSecretContext, serverSecretContext } from '@/lib/secrets/seal-contexts';
import type { SecretBox } from '@/lib/secrets/secret-box';

/** Which server a sealed value belongs to: its id and owner are bound into the value (lib/secrets/seal-contexts.ts). */
type ServerKey = Pick<ServerRow, 'id' | 'userId'>;

/** The header credentials sealed for this server, or null when there are none. */
export function sealHeaders(box: SecretBox, server: ServerKey, headers: Record<string, string>): string | null {
  return Object.keys(headers).length ? box.seal(JSON.stringify(headers), serverSecretContext('headers_sealed', server)) : null;
}

/** The stored header credentials, opened (empty when there are none). Throws if they cannot be opened. */
export function openHeaders(row: ServerKey & Pick<ServerRow, 'headersSealed'>, box: SecretBox): Record<string, string> {
  if (!row.headersSealed) return {};
  return sealedHeaders.parse(JSON.parse(box.open(row.headersSealed, serverSecretContext('headers_sealed', row))));
}

/** The pre-registered OAuth client's secret, sealed for this server. */
export function sealClientSecret(box: SecretBox, server: ServerKey, secret: string): string {
  return box.seal(secret, serverSecretContext('oauth_client_secret_sealed', server));
}

/** The pre-registered OAuth client's secret, opened (undefined when there is none). Throws if it cannot be opened. */
export function openClientSecret(row: ServerKey & Pick<ServerRow, 'oauthClientSecretSealed'>, box: SecretBox): string | undefined {
  if (!row.oauthClientSecretSealed) return undefined;
  return box.open(row.oauthClientSecretSealed, serverSecretContext('oauth_client_secret_sealed', row));
}

/** An organization's shared credential, sealed for its shared server. */
export function sealOrgHeaders(box: SecretBox, server: { id: string; orgId: string }, headers: Record<string, string>): string | null {
  return Object.keys(headers).length ? box.seal(JSON.stringify(headers), orgServerSecretContext(server)) : null;
}

/** The organization's shared credential, opened (empty when there is none). Throws if it cannot be opened. */
export function openOrgHeaders(
  server: { id: string; orgId: string; headersSealed: string | null },
  box: SecretBox,
): Record<string, string> {
  if (!server.headersSealed) return {};
  return sealedHeaders.parse(JSON.parse(box.open(server.headersSealed, orgServerSecretContext(server))));
}

/**
 * The headers a connection sends: the person's own, or — for a member's use of an organization's
 * server with a shared credential — the organization's, opened here at connect time and never
 * copied into the member's row.
 */
function connectionHeaders(row: ServerRow, box: SecretBox): Record<string, string> {
  if (row.org?.auth === 'shared')
    return openOrgHeaders({ id: row.org.orgServerId, orgId: row.org.orgId, headersSealed: row.org.headersSealed }, box);
  return openHeaders(row, box);
}

/**
 * The row without any sealed headers, its organization's included: what is listed and shown when
 * they cannot be opened (a rotated key, a damaged value), so the page still loads.
 */
export function withoutSealedHeaders(row: ServerRow): ServerRow {
  return { ...row, headersSealed: null, org: row.org && { ...row.org, headersSealed: null } };
}

/** How the gateway reaches a user-added server: its headers opened, its reviewed tools attached. */
export function serverConfig(row: ServerRow, box: SecretBox): McpServerConfig {
  const headers = connectionHeaders(row, box);
  return {
    id: row.id,
    namespace: row.namespace,
    // A shared server is named with its organization wherever a member sees it (Tools panel, approval and sign-in cards, Activity).
    displayName: row.org ? `${row.name} (${row.org.orgName})` : row.name,
    url: row.url,
    trust: row.trust,
    trustContent: row.trustContent,
    showViews: row.showViews,
    timeoutMs: row.timeoutMs,
    ...(Object.keys(headers).length > 0 && { headers }),
    // The organization's credential is the only one it is reached with: no member's OAuth token besides.
    ...(row.org?.auth === 'shared' && { noOAuth: true }),
    reviewedTools: row.reviewedTools,
  };
}
