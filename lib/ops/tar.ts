/**
 * The few lines of POSIX ustar a backup needs: regular files only, names up to 100 bytes, sizes
 * below 8 GiB. A standard format, so `tar -tvf backup.tar` lists a backup and `tar -xf` unpacks
 * it by hand if ever needed.
 */
const BLOCK = 512;

export interface TarEntry {
  name: string;
  data: Buffer;
  /** Permission bits recorded for the file (0600 for everything a backup holds). */
  mode?: number;
}

export function writeTar(entries: TarEntry[], mtime = new Date()): Buffer {
  const parts: Buffer[] = [];
  for (const e of entries) {
    const name = Buffer.from(e.name, 'utf8');
    if (name.length > 100) throw new Error(`tar: the name "${e.name}" is longer than 100 bytes`);
    const header = Buffer.alloc(BLOCK);
    name.copy(header, 0);
    octal(header, 100, 8, e.mode ?? 0o600);
    octal(header, 108, 8, 0);
    octal(header, 116, 8, 0);
    octal(header, 124, 12, e.data.length);
    octal(header, 136, 12, Math.floor(mtime.getTime() / 1000));
    header.write('0', 156); // a regular file
    header.write('ustar\u000000', 257, 'latin1');
    header.fill(' ', 148, 156);
    octal(header, 148, 7, checksum(header));
    parts.push(header, e.data, Buffer.alloc(padding(e.data.length)));
  }
  parts.push(Buffer.alloc(BLOCK * 2));
  return Buffer.concat(parts);
}

/** Every regular file of a ustar archive by name; anything else in it (folders, links) is refused. */
export function readTar(archive: Buffer): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  let at = 0;
  while (at + BLOCK <= archive.length) {
    const header = archive.subarray(at, at + BLOCK);
    if (header.every((b) => b === 0)) return files;
    if (header.toString('latin1', 257, 262) !== 'ustar') throw new Error(`not a tar archive (no ustar header at byte ${at})`);
    const stored = parseInt(header.toString('latin1', 148, 156).replace(/\0.*$/, '').trim(), 8);
    const blank = Buffer.from(header);
    blank.fill(' ', 148, 156);
    if (stored !== checksum(blank)) throw new Error(`the tar archive is damaged (bad header checksum at byte ${at})`);
    const name = cString(header, 0, 100);
    const type = header.toString('latin1', 156, 157);
    const size = parseInt(cString(header, 124, 12).trim() || '0', 8);
    if (type !== '0' && type !== '\0') throw new Error(`the tar archive holds "${name}", which is not a regular file`);
    const start = at + BLOCK;
    if (start + size > archive.length) throw new Error(`the tar archive is cut short inside "${name}"`);
    files.set(name, archive.subarray(start, start + size));
    at = start + size + padding(size);
  }
  throw new Error('the tar archive is cut short (no end-of-archive blocks)');
}

function octal(header: Buffer, offset: number, width: number, value: number) {
  header.write(`${value.toString(8).padStart(width - 1, '0')}\0`, offset, width, 'latin1');
}

function checksum(header: Buffer): number {
  let sum = 0;
  for (const b of header) sum += b;
  return sum;
}

function cString(header: Buffer, offset: number, width: number): string {
  const raw = header.subarray(offset, offset + width);
  const end = raw.indexOf(0);
  return raw.toString('utf8', 0, end === -1 ? width : end);
}

function padding(size: number): number {
  return (BLOCK - (size % BLOCK)) % BLOCK;
}
