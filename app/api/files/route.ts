import { fileDeps, maxUploadBytes, uploadFile } from '@/lib/files/service';
import { readFileField } from '@/lib/http/multipart';
import { authed } from '@/lib/server/route';

/**
 * Uploads one file (multipart, field `file`) for the person's draft: `201 { file: FileView }`.
 * Its type is read from its bytes; a message then refers to it as `{ fileId }` in `attachments`.
 */
export const POST = authed(
  async ({ req, rt, session }) => {
    const upload = await readFileField(req, 'file', maxUploadBytes());
    const file = await uploadFile(fileDeps(rt.handle.db), session.user.id, upload);
    return Response.json({ file }, { status: 201 });
  },
  { write: true },
);
