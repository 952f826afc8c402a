import { fileResponse } from '@/lib/files/serve';
import { deleteOwnFile, fileDeps, readOwnFile } from '@/lib/files/service';
import { authed, requireUuid } from '@/lib/server/route';

type P = { id: string };

/** The file's bytes, to its owner only (anyone else: 404), served so that nothing in them runs. */
export const GET = authed<P>(async ({ rt, session, params }) => {
  const { file, bytes } = await readOwnFile(fileDeps(rt.handle.db), session.user.id, requireUuid(params.id, 'file'));
  return fileResponse(file, bytes);
});

/** Deletes a draft's file (204); a file a sent message holds is kept with its conversation (409). */
export const DELETE = authed<P>(
  async ({ rt, session, params }) => {
    await deleteOwnFile(fileDeps(rt.handle.db), session.user.id, requireUuid(params.id, 'file'));
    return new Response(null, { status: 204 });
  },
  { write: true },
);
