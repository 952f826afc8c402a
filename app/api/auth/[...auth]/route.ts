import { handleAuthRequest } from '@/lib/auth/handler';
import { getRuntime } from '@/lib/server/runtime';

async function handle(req: Request): Promise<Response> {
  const rt = await getRuntime();
  // An account takeover by single sign-on revokes the account's tokens: their listen streams close at once.
  return handleAuthRequest(req, rt.handle.db, rt.secret, (id) => rt.mcp.clientRevoked(id));
}

export const GET = handle;
export const POST = handle;
