import { AppError } from './errors';
import { readCapped } from './read-capped';

/** Room for the multipart framing around the file: boundaries, part headers, a long file name. */
const FRAMING_BYTES = 64 * 1024;

/**
 * The one file of a `multipart/form-data` body, in field `field`, read with a cap: a body past
 * `maxFileBytes` (plus framing) is refused while it streams, before it is all in memory. The size
 * of the file itself is for the caller to judge (its limit depends on what the file is).
 */
export async function readFileField(req: Request, field: string, maxFileBytes: number): Promise<{ name: string; bytes: Uint8Array }> {
  const type = req.headers.get('content-type') ?? '';
  if (!/^multipart\/form-data\b/i.test(type)) {
    throw new AppError(
      'unsupported_media_type',
      'body',
      `Send the file as multipart/form-data with the field "${field}" (got "${type || 'no Content-Type'}").`,
    );
  }
  const cap = maxFileBytes + FRAMING_BYTES;
  const tooLarge = () =>
    new AppError('payload_too_large', 'body', `${field}: no file may be larger than ${Math.round(maxFileBytes / 1024 / 1024)} MB.`, field);
  if (Number(req.headers.get('content-length') ?? NaN) > cap) throw tooLarge();
  const body = await readCapped(req.body, cap, tooLarge);
  let form: FormData;
  try {
    form = await new Response(body, { headers: { 'content-type': type } }).formData();
  } catch {
    throw new AppError('bad_request', 'body', 'The body is not valid multipart/form-data.');
  }
  const file = form.get(field);
  if (!file || typeof file === 'string') {
    throw new AppError('bad_request', 'body', `${field}: send one file in the form field "${field}".`, field);
  }
  return { name: file.name, bytes: new Uint8Array(await file.arrayBuffer()) };
}
