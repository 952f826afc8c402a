import { STREAM_EVENTS, type StreamClosed } from '@/lib/agent/events';

import { inboxTopic, type ApprovalDeps } from './approvals';
import { INBOX_CHANGED } from './inbox-events';

/**
 * The "Other clients" inbox's push to an open tab (`GET /api/client-approvals/events`): an SSE
 * stream that says `client_approvals.changed` (with the call's id and status) whenever a call of
 * the person's MCP clients starts or stops waiting, on any instance, and pings so the page can
 * tell a dead stream from a quiet one. It carries no call's content: the page reads the list
 * (`GET /api/client-approvals`), the truth in the database, on each notice and on reconnecting.
 */
export async function openInboxStream(
  deps: Pick<ApprovalDeps, 'bus'>,
  userId: string,
  signal: AbortSignal,
  pingMs: number,
  /** Counts the stream in with the person's other open streams (the same caps as a conversation's); closing it when evicted. */
  register: (close: (closed: StreamClosed) => void) => () => void,
): Promise<ReadableStream<Uint8Array>> {
  const encoder = new TextEncoder();
  let stop = () => {};
  return new ReadableStream<Uint8Array>({
    async start(controller) {
      let open = true;
      const send = (type: string, data: Record<string, unknown>) => {
        if (!open) return;
        try {
          controller.enqueue(encoder.encode(`event: ${type}\ndata: ${JSON.stringify(data)}\n\n`));
        } catch {
          stop();
        }
      };
      const unsubscribe = await deps.bus.subscribe(
        inboxTopic(userId),
        (event) => {
          if (event.type === INBOX_CHANGED) send(INBOX_CHANGED, { id: event.data.id, status: event.data.status });
        },
        // The bus may have missed notices: the page reads the list again.
        () => send(INBOX_CHANGED, { id: null, status: null }),
      );
      const ping = setInterval(() => send(STREAM_EVENTS.ping, {}), pingMs);
      const release = register((closed) => {
        send(STREAM_EVENTS.closed, { ...closed });
        stop();
      });
      stop = () => {
        if (!open) return;
        open = false;
        clearInterval(ping);
        unsubscribe();
        release();
        try {
          controller.close();
        } catch {
          // Already closed by the reader.
        }
      };
      if (signal.aborted) return stop();
      signal.addEventListener('abort', () => stop(), { once: true });
      // Open: the page reads the list now, so nothing announced before it subscribed is missed.
      send(INBOX_CHANGED, { id: null, status: null });
    },
    cancel() {
      stop();
    },
  });
}
