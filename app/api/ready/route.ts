import { readiness } from '@/lib/ops/readiness';
import { getDbHandle } from '@/lib/server/database';

/**
 * Readiness: 200 when the database answers and every migration is applied, else 503 saying what
 * is wrong. Public (it says nothing about anyone's data). Opens the process's database on first
 * use, the one the runtime shares.
 */
export async function GET(): Promise<Response> {
  const { ready, body } = await readiness(getDbHandle);
  return Response.json(body, { status: ready ? 200 : 503, headers: { 'Cache-Control': 'no-store' } });
}
