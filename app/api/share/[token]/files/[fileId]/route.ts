import { fileResponse } from '@/lib/files/serve';
import { clientKey } from '@/lib/http/origin';
import { maybeAuthed, requireUuid } from '@/lib/server/route';
import { SHARED_HEADERS } from '@/lib/share/headers';
import { openSharedFile } from '@/lib/share/service';

type P = { token: string; fileId: string };

/**
 * A file of a shared conversation, through the token: only when the owner included files and
 * only one the snapshot shows (else 404, like a wrong token). Served like the owner's file, and
 * never stored by a browser or proxy (a revoked link stops serving at once).
 */
export const GET = maybeAuthed<P>(
  async ({ req, rt, session, params }) => {
    const fileId = requireUuid(params.fileId, 'file');
    const { file, bytes } = await openSharedFile(rt, params.token, fileId, session && { userId: session.user.id }, clientKey(req));
    return fileResponse(file, bytes, { cache: 'no-store' });
  },
  { headers: SHARED_HEADERS },
);
