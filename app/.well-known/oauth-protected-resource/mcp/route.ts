import { protectedResourceMetadata } from '@/lib/gateway/metadata';
import { appOrigin } from '@/lib/http/origin';

/** RFC 9728 protected resource metadata of `/mcp`, named by its 401's `WWW-Authenticate`. Public. */
export function GET(req: Request): Response {
  return Response.json(protectedResourceMetadata(appOrigin(req)), {
    headers: { 'Cache-Control': 'public, max-age=300', 'Access-Control-Allow-Origin': '*' },
  });
}
