import { handleAuthRequest } from '@/lib/auth/handler';
import { getRuntime } from '@/lib/server/runtime';

async function handle(req: Request): Promise<Response> {
  const rt = await getRuntime();
  return handleAuthRequest(req, rt.handle.db, rt.secret);
}

export const GET = handle;
export const POST = handle;
