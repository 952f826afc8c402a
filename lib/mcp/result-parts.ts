/**
 * MCP content blocks → a flat list of parts the model can take: text, or an image the Messages
 * API will accept. Everything else (audio, binary blobs, unknown types) becomes a short text
 * note, so the model knows something was there without us sending bytes it cannot use.
 */

export type ImageMediaType = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';

export type Part = { kind: 'text'; text: string } | { kind: 'image'; mediaType: ImageMediaType; data: string; bytes: number };

export const IMAGE_LIMITS = { maxBytes: 1.5 * 1024 * 1024, maxImages: 8, maxTotalBytes: 4 * 1024 * 1024 };

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function decode(data: unknown): Buffer | undefined {
  if (typeof data !== 'string') return undefined;
  const clean = data.replace(/\s+/g, '');
  if (clean.length % 4 === 1 || !BASE64.test(clean)) return undefined;
  return Buffer.from(clean, 'base64');
}

/** The API rejects an image whose bytes are not what its media type says: trust the bytes. */
export function sniffImage(bytes: Buffer): ImageMediaType | undefined {
  if (bytes.length >= 8 && bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (bytes.length >= 6 && /^GIF8[79]a$/.test(bytes.subarray(0, 6).toString('latin1'))) return 'image/gif';
  if (bytes.length >= 12 && bytes.subarray(0, 4).toString('latin1') === 'RIFF' && bytes.subarray(8, 12).toString('latin1') === 'WEBP')
    return 'image/webp';
  return undefined;
}

interface ImageBudget {
  count: number;
  bytes: number;
}

function imagePart(data: unknown, mimeType: string | undefined, budget: ImageBudget, label: string): Part {
  const bytes = decode(data);
  const mime = mimeType ?? 'unknown type';
  if (!bytes) return { kind: 'text', text: `[${label} (${mime}) omitted: its data is not valid base64]` };
  const sniffed = sniffImage(bytes);
  if (!sniffed) return { kind: 'text', text: `[${label} (${mime}, ${size(bytes.length)}) omitted: not a PNG, JPEG, GIF or WebP image]` };
  if (bytes.length > IMAGE_LIMITS.maxBytes) {
    return { kind: 'text', text: `[${label} (${sniffed}, ${size(bytes.length)}) omitted: larger than ${size(IMAGE_LIMITS.maxBytes)}]` };
  }
  if (budget.count >= IMAGE_LIMITS.maxImages || budget.bytes + bytes.length > IMAGE_LIMITS.maxTotalBytes) {
    return {
      kind: 'text',
      text: `[${label} (${sniffed}, ${size(bytes.length)}) omitted: this result already carries as many images as one result may]`,
    };
  }
  budget.count++;
  budget.bytes += bytes.length;
  return { kind: 'image', mediaType: sniffed, data: bytes.toString('base64'), bytes: bytes.length };
}

function resourcePart(resource: Record<string, unknown>, budget: ImageBudget): Part {
  const uri = str(resource.uri) ?? '(no uri)';
  const mime = str(resource.mimeType);
  const head = `[resource ${uri}${mime ? ` (${mime})` : ''}]`;
  const text = str(resource.text);
  if (text !== undefined) return { kind: 'text', text: `${head}\n${text}` };
  if (resource.blob !== undefined) {
    if (mime?.startsWith('image/')) return imagePart(resource.blob, mime, budget, `image resource ${uri}`);
    const bytes = decode(resource.blob);
    return {
      kind: 'text',
      text: `[resource ${uri}${mime ? ` (${mime})` : ''}: ${bytes ? size(bytes.length) : 'invalid'} binary data, not shown]`,
    };
  }
  return { kind: 'text', text: `${head} (empty)` };
}

export function contentToParts(content: unknown): Part[] {
  const blocks = Array.isArray(content) ? content : [];
  const budget: ImageBudget = { count: 0, bytes: 0 };
  const parts: Part[] = [];
  for (const raw of blocks) {
    if (raw === null || typeof raw !== 'object') continue;
    const block = raw as Record<string, unknown>;
    switch (block.type) {
      case 'text':
        parts.push({ kind: 'text', text: typeof block.text === 'string' ? block.text : String(block.text ?? '') });
        break;
      case 'image':
        parts.push(imagePart(block.data, str(block.mimeType), budget, 'image'));
        break;
      case 'audio': {
        const bytes = decode(block.data);
        parts.push({
          kind: 'text',
          text:
            `[audio (${str(block.mimeType) ?? 'unknown type'}${bytes ? `, ${size(bytes.length)}` : ''}) omitted: audio cannot be ` +
            `passed to the model]`,
        });
        break;
      }
      case 'resource_link': {
        const name = str(block.name) ?? str(block.title) ?? 'resource';
        const mime = str(block.mimeType);
        const description = str(block.description);
        const details = `${mime ? ` (${mime})` : ''}${description ? ` — ${description}` : ''}`;
        parts.push({
          kind: 'text',
          text: `[resource link: ${name} <${str(block.uri) ?? '(no uri)'}>${details}]`,
        });
        break;
      }
      case 'resource':
        parts.push(
          block.resource !== null && typeof block.resource === 'object'
            ? resourcePart(block.resource as Record<string, unknown>, budget)
            : { kind: 'text', text: '[embedded resource omitted: it has no contents]' },
        );
        break;
      default:
        parts.push({ kind: 'text', text: `[content of type ${JSON.stringify(String(block.type)).slice(0, 60)} omitted: not supported]` });
    }
  }
  return parts;
}

/** How an image sits in the stored full text (which holds no bytes). */
export function imagePlaceholder(part: Extract<Part, { kind: 'image' }>): string {
  return `[image (${part.mediaType}, ${size(part.bytes)})]`;
}
