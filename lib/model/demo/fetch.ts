import { countTokensBody, overWindow } from './context-window';
import { receivedFiles } from './files';
import { demoModelsPage } from './models';
import { promptCacheUsage } from './prompt-cache';
import { decideReply, lastUserText, OVERLOADED_TRIGGER } from './reply';
import { estimateInputTokens, parseRequestBody } from './request';
import { abortErrorFrom, DemoStreamBrokenError, paceEvents } from './sse';
import { toMessage, toStreamEvents } from './wire';

// The HTTP surface of the demo model: a `fetch` that answers
// `POST <anything>/v1/messages` (and `GET /v1/models`) in-process, exactly as
// the real API would on the wire. It is handed to the real SDK (`new Anthropic({ fetch })`), so the
// host's code path is the same one that talks to Anthropic — only the network
// is missing. Everything else gets the API's 404 error shape.

export type DemoFetchOptions = {
  /** Pause between streamed words, in ms; 0 streams as fast as the reader reads. */
  delayMs: number;
};

export function createDemoFetch(opts: DemoFetchOptions): typeof fetch {
  if (!Number.isInteger(opts.delayMs) || opts.delayMs < 0) {
    throw new Error(`createDemoFetch: delayMs must be a non-negative integer, got ${String(opts.delayMs)}.`);
  }
  const { delayMs } = opts;

  return async function demoFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
    const request = input instanceof Request ? input : undefined;
    const signal = init?.signal ?? request?.signal ?? undefined;
    // fetch rejects with the abort reason when the signal is already aborted.
    if (signal?.aborted) throw abortErrorFrom(signal);

    const url = new URL(request ? request.url : String(input));
    const method = (init?.method ?? request?.method ?? 'GET').toUpperCase();
    if (method === 'GET' && /\/v1\/models\/?$/.test(url.pathname)) {
      return new Response(JSON.stringify(demoModelsPage()), {
        status: 200,
        headers: { 'content-type': 'application/json', 'request-id': newId('req_demo_') },
      });
    }
    if (method === 'POST' && /\/v1\/messages\/count_tokens\/?$/.test(url.pathname)) {
      const raw = await readBody(init?.body ?? null, request);
      const parsed = parseRequestBody(raw);
      if (!parsed.ok) return errorResponse(400, 'invalid_request_error', parsed.message);
      return new Response(JSON.stringify(countTokensBody(raw)), {
        status: 200,
        headers: { 'content-type': 'application/json', 'request-id': newId('req_demo_') },
      });
    }
    if (method !== 'POST' || !/\/v1\/messages\/?$/.test(url.pathname)) {
      return errorResponse(
        404,
        'not_found_error',
        `Demo model: there is no ${method} ${url.pathname}. It only answers POST /v1/messages and GET /v1/models.`,
      );
    }

    const raw = await readBody(init?.body ?? null, request);
    const parsed = parseRequestBody(raw);
    if (!parsed.ok) return errorResponse(400, 'invalid_request_error', parsed.message);
    const body = parsed.request;
    // Over the model's window: refused before anything streams, as the API does.
    const tooLong = overWindow(body.model, raw);
    if (tooLong) return errorResponse(400, 'invalid_request_error', tooLong);

    if (lastUserText(body.messages).includes(OVERLOADED_TRIGGER)) {
      return errorResponse(529, 'overloaded_error', 'Overloaded');
    }

    const reply = decideReply(body, { files: await receivedFiles(body.messages) });
    const cached = promptCacheUsage(JSON.parse(raw), estimateInputTokens(raw));
    const meta = {
      id: newId('msg_demo_'),
      model: body.model,
      inputTokens: cached.inputTokens,
      cache: { creationTokens: cached.creationTokens, readTokens: cached.readTokens },
    };

    if (body.stream) {
      const events = toStreamEvents(reply, meta);
      return new Response(paceEvents(events, { delayMs, signal }), {
        status: 200,
        headers: {
          'content-type': 'text/event-stream; charset=utf-8',
          'cache-control': 'no-cache',
          'request-id': newId('req_demo_'),
        },
      });
    }

    const json = JSON.stringify(toMessage(reply, meta));
    return new Response(reply.failMidstream ? brokenBody(json) : json, {
      status: 200,
      headers: { 'content-type': 'application/json', 'request-id': newId('req_demo_') },
    });
  };
}

/** The API's error body: `{type:'error', error:{type, message}}`. */
function errorResponse(status: number, type: string, message: string): Response {
  return new Response(JSON.stringify({ type: 'error', error: { type, message } }), {
    status,
    headers: { 'content-type': 'application/json', 'request-id': newId('req_demo_') },
  });
}

/** Non-streaming `[demo:fail-midstream]`: half the JSON, then the connection "drops". */
function brokenBody(json: string): ReadableStream<Uint8Array> {
  const half = new TextEncoder().encode(json.slice(0, Math.floor(json.length / 2)));
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(half);
    },
    pull(controller) {
      controller.error(new DemoStreamBrokenError());
    },
  });
}

async function readBody(body: BodyInit | null, request: Request | undefined): Promise<string> {
  if (typeof body === 'string') return body;
  if (body !== null) return new Response(body).text();
  return request ? request.text() : '';
}

function newId(prefix: string): string {
  return prefix + crypto.randomUUID().replace(/-/g, '').slice(0, 24);
}
