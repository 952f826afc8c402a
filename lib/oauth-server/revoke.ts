import { expireOAuthToken, findOAuthTokenForRevocation, revokeGrant } from '@/db/queries/oauth-server';
import { hashAccessToken } from '@/lib/auth/access-tokens';

import { resolveClient, type ClientDeps } from './clients';
import { OAuthProblem } from './errors';

/**
 * Token revocation (RFC 7009): a refresh token ends the whole connection (its grant, so every
 * access token with it, §2.1 "SHOULD"); an access token ends alone. A token that is unknown, or
 * another client's, is answered 200 like any other (§2.2): the answer tells nothing.
 */
export async function revokeRequest(deps: ClientDeps, form: URLSearchParams): Promise<void> {
  const token = form.get('token');
  if (!token) throw new OAuthProblem('invalid_request', 'token is required.');
  const client = await resolveClient(deps, form.get('client_id'));
  const now = deps.now ?? new Date();
  const found = await findOAuthTokenForRevocation(deps.db, hashAccessToken(token));
  if (!found || found.oauthClientId !== client.id) return;
  if (found.kind === 'refresh') await revokeGrant(deps.db, found.grantId, now);
  else await expireOAuthToken(deps.db, found.id, now);
  deps.onRevoked?.(found.grantId);
}
