import { clientKey } from '@/lib/http/origin';
import { registerClient } from '@/lib/oauth-server/clients';
import { oauthErrorResponse, oauthJson } from '@/lib/oauth-server/errors';
import { readJsonBody } from '@/lib/oauth-server/form';
import { getRuntime } from '@/lib/server/runtime';

/**
 * Dynamic client registration (RFC 7591) for MCP clients without a client metadata document:
 * public clients only, `201` with the new client_id. Open to anyone (it grants nothing: a person
 * still has to allow the client), limited per address.
 */
export async function POST(req: Request): Promise<Response> {
  try {
    const rt = await getRuntime();
    return oauthJson(await registerClient(rt.handle.db, await readJsonBody(req), clientKey(req)), 201);
  } catch (err) {
    return oauthErrorResponse(err);
  }
}
