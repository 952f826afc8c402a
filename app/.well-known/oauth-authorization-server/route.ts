import { appOrigin } from '@/lib/http/origin';
import { authorizationServerMetadata } from '@/lib/oauth-server/metadata';

/** RFC 8414 authorization server metadata of Switchboard's own authorization server (for /mcp). Public. */
export function GET(req: Request): Response {
  return Response.json(authorizationServerMetadata(appOrigin(req)), {
    headers: { 'Cache-Control': 'public, max-age=300', 'Access-Control-Allow-Origin': '*' },
  });
}
