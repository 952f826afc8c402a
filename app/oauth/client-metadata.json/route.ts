import { appOrigin } from '@/lib/http/origin';
import { clientMetadataDocument } from '@/lib/mcp/oauth/client-metadata';

/**
 * The client ID metadata document: authorization servers that support it fetch this URL, which
 * is itself the client_id (no registration). Public, and the same for everyone.
 */
export function GET(req: Request): Response {
  return Response.json(clientMetadataDocument(appOrigin(req)), { headers: { 'cache-control': 'public, max-age=3600' } });
}
