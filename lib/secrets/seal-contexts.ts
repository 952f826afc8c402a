import type { SealContext } from './secret-box';

/**
 * Where each sealed column's values are bound (the SecretBox's `SealContext`), one helper per
 * table: every seal and open of that table builds its context here, and nowhere else. The table
 * and column names are part of the sealed data, so they are fixed strings rather than read from
 * the schema: renaming a column in db/schema.ts must not orphan the values it holds.
 */

export type ServerSecretColumn = 'headers_sealed' | 'oauth_client_secret_sealed';

/**
 * `mcp_servers`: the server's id and its owner. A value pasted into another server's row, or a
 * row handed to another user, no longer opens. The id is generated before the insert
 * (lib/servers/service.ts), since the value is sealed before the row exists.
 */
export function serverSecretContext(column: ServerSecretColumn, server: { id: string; userId: string }): SealContext {
  return { table: 'mcp_servers', column, row: { id: server.id, userId: server.userId } };
}

export type CredentialSecretColumn = 'client_info' | 'tokens';

/**
 * `oauth_credentials`: the row's natural key (user, authorization server, resource), unique per
 * row. Not its id: the row is written by an upsert on that key (db/queries/oauth.ts), and a
 * value sealed before it cannot know which id the row will turn out to have.
 */
export function credentialSecretContext(
  column: CredentialSecretColumn,
  credential: { userId: string; issuer: string; resource: string },
): SealContext {
  return {
    table: 'oauth_credentials',
    column,
    row: { userId: credential.userId, issuer: credential.issuer, resource: credential.resource },
  };
}

/** `oauth_flows.code_verifier`: the flow's id (generated before the insert) and its owner. */
export function flowSecretContext(flow: { id: string; userId: string }): SealContext {
  return { table: 'oauth_flows', column: 'code_verifier', row: { id: flow.id, userId: flow.userId } };
}

/**
 * `org_servers.headers_sealed`: the organization's shared credential, bound to the shared server's
 * id and its organization — a value copied into a member's row (or another organization's) does not open.
 */
export function orgServerSecretContext(server: { id: string; orgId: string }): SealContext {
  return { table: 'org_servers', column: 'headers_sealed', row: { id: server.id, orgId: server.orgId } };
}
