import { appOrigin } from '@/lib/http/origin';
import { oauthErrorResponse, oauthJson } from '@/lib/oauth-server/errors';
import { readForm } from '@/lib/oauth-server/form';
import { tokenRequest } from '@/lib/oauth-server/token';
import { getRuntime } from '@/lib/server/runtime';

/** The token endpoint of Switchboard's authorization server: authorization_code (PKCE) and refresh_token (rotated). */
export async function POST(req: Request): Promise<Response> {
  try {
    const rt = await getRuntime();
    const deps = { db: rt.handle.db, onRevoked: (id: string) => rt.mcp.clientRevoked(id) };
    return oauthJson(await tokenRequest(deps, await readForm(req), appOrigin(req)));
  } catch (err) {
    return oauthErrorResponse(err);
  }
}
