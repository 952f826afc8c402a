import { getRuntime } from '@/lib/server/runtime';

/**
 * Switchboard's MCP endpoint (Streamable HTTP, protocol 2026-07-28 and 2025-11-25): a personal
 * access token as `Authorization: Bearer`, never a cookie (lib/gateway/endpoint.ts).
 */
async function serve(req: Request): Promise<Response> {
  return (await getRuntime()).mcp.serve(req);
}

export const GET = serve;
export const POST = serve;
export const DELETE = serve;
