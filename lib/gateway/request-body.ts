import { DEFAULT_MAX_REQUEST_BODY_SIZE, isJsonContentType, readRequestBody } from '@modelcontextprotocol/server';

/**
 * The JSON-RPC body of a `/mcp` POST, read once by the endpoint before the SDK's handler gets it
 * (as `parsedBody`): the endpoint needs the method (a `subscriptions/listen` stream is counted and
 * may be closed, ./listen-streams.ts), and the handler, given the parsed body, no longer clones
 * the request to read it a second time (a tee of the body stream on every call).
 *
 * Read as the SDK reads it (its own `readRequestBody`, the same size bound). Whatever the SDK
 * would refuse — not JSON, too large, unreadable — is left for it to answer in its own words:
 * the request goes on as it came, or rebuilt with the text read when the body is spent.
 */
export type ReadMessage =
  { kind: 'parsed'; body: unknown; request: Request } | { kind: 'as_is'; request: Request } | { kind: 'refused'; response: Response };

export async function readMessage(req: Request): Promise<ReadMessage> {
  if (req.method.toUpperCase() !== 'POST' || !isJsonContentType(req.headers.get('content-type'))) return { kind: 'as_is', request: req };
  let text: string;
  try {
    const read = await readRequestBody(req, DEFAULT_MAX_REQUEST_BODY_SIZE);
    if (read.tooLarge) {
      const message = `Payload Too Large: Request body must not exceed ${DEFAULT_MAX_REQUEST_BODY_SIZE} bytes`;
      return { kind: 'refused', response: jsonRpcError(413, -32000, message) };
    }
    text = read.text;
  } catch {
    return { kind: 'refused', response: jsonRpcError(400, -32700, 'Parse error: the request body could not be read') };
  }
  try {
    const body: unknown = text.length === 0 ? undefined : JSON.parse(text);
    if (body !== undefined) return { kind: 'parsed', body, request: req };
  } catch {
    // Not JSON: the SDK answers it (or its 2025-era fallback does) from the same text.
  }
  return { kind: 'as_is', request: new Request(req.url, { method: req.method, headers: req.headers, body: text, signal: req.signal }) };
}

/** The JSON-RPC method of a single request (a batch or a response has none). */
export function methodOf(body: unknown): string | null {
  const method = (body as { method?: unknown } | null)?.method;
  return typeof method === 'string' && !Array.isArray(body) ? method : null;
}

/** The id to answer a request with (JSON-RPC: a string or a number; otherwise null). */
export function requestIdOf(body: unknown): string | number | null {
  const id = (body as { id?: unknown } | null)?.id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

export function jsonRpcError(status: number, code: number, message: string, id: string | number | null = null): Response {
  return Response.json({ jsonrpc: '2.0', error: { code, message }, id }, { status });
}
