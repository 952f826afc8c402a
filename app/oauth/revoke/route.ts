import { oauthErrorResponse, oauthJson } from '@/lib/oauth-server/errors';
import { readForm } from '@/lib/oauth-server/form';
import { revokeRequest } from '@/lib/oauth-server/revoke';
import { getRuntime } from '@/lib/server/runtime';

/** Token revocation (RFC 7009): 200 whether or not the token was known. */
export async function POST(req: Request): Promise<Response> {
  try {
    const rt = await getRuntime();
    await revokeRequest({ db: rt.handle.db, onRevoked: (id) => rt.mcp.clientRevoked(id) }, await readForm(req));
    return oauthJson({});
  } catch (err) {
    return oauthErrorResponse(err);
  }
}
