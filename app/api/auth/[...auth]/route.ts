import { Auth } from '@auth/core';

import { buildAuthConfig } from '@/lib/auth/config';
import { getRuntime } from '@/lib/server/runtime';

async function handle(req: Request): Promise<Response> {
  const rt = await getRuntime();
  return Auth(req, buildAuthConfig(rt.handle.db, rt.secret));
}

export const GET = handle;
export const POST = handle;
