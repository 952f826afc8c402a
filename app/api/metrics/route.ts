import { requireBearerToken } from '@/lib/http/bearer';
import { errorResponse } from '@/lib/http/errors';
import { getRuntime } from '@/lib/server/runtime';

/**
 * Prometheus metrics of this instance (lib/ops/metrics.ts), for the operators' scraper:
 * `Authorization: Bearer $METRICS_TOKEN`. Without METRICS_TOKEN the endpoint does not exist.
 */
export async function GET(req: Request): Promise<Response> {
  try {
    requireBearerToken(req, { variable: 'METRICS_TOKEN', surface: 'metrics', what: 'metrics' });
    const { metrics } = await getRuntime();
    return new Response(await metrics.text(), { headers: { 'Content-Type': metrics.contentType, 'Cache-Control': 'no-store' } });
  } catch (err) {
    return errorResponse(err);
  }
}
