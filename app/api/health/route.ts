/**
 * Liveness: the process answers. Touches nothing (no database, no runtime), so a slow or
 * unreachable database never gets a healthy process restarted; readiness is /api/ready.
 */
export function GET(): Response {
  return Response.json({ status: 'ok' }, { headers: { 'Cache-Control': 'no-store' } });
}
