import { readiness } from '@/lib/ops/readiness';
import { getRuntime } from '@/lib/server/runtime';

/**
 * Readiness: 200 when the database answers and every migration is applied, else 503 saying what
 * is wrong. Public (it says nothing about anyone's data); opens the runtime on first use.
 */
export async function GET(): Promise<Response> {
  const { ready, body } = await readiness(async () => (await getRuntime()).handle);
  return Response.json(body, { status: ready ? 200 : 503, headers: { 'Cache-Control': 'no-store' } });
}
