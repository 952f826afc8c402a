import { buildAccountExport, exportFileName } from '@/lib/account/export';
import { authed } from '@/lib/server/route';

/** Export my data as a JSON download. */
export const GET = authed(async ({ session, rt }) => {
  const data = await buildAccountExport(rt.handle.db, session.user.id);
  return new Response(JSON.stringify(data, null, 2), {
    headers: {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Disposition': `attachment; filename="${exportFileName()}"`,
      'Cache-Control': 'no-store',
    },
  });
});
