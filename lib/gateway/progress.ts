import type { ServerContext } from '@modelcontextprotocol/server';

import type { ProgressUpdate } from '@/lib/mcp/types';

/**
 * An upstream server's progress on a client's call, passed on to a client that asked for progress
 * (its request carried a progress token; else there is nowhere to send it). The numbers go as the
 * server sent them; its message only when the person trusts the server's content
 * (`untrustedWords: false`) — words from an untrusted server would otherwise reach the client's
 * model outside the result, which is where the gateway marks taint.
 */
export function relayedProgress(ctx: ServerContext): ((update: ProgressUpdate, opts: { untrustedWords: boolean }) => void) | undefined {
  const token = (ctx.mcpReq._meta as { progressToken?: string | number } | undefined)?.progressToken;
  if (token === undefined) return undefined;
  return (update, { untrustedWords }) => {
    if (ctx.mcpReq.signal.aborted) return;
    const params = {
      progressToken: token,
      progress: update.progress,
      ...(update.total !== undefined && { total: update.total }),
      ...(update.message !== undefined && !untrustedWords && { message: update.message }),
    };
    ctx.mcpReq.notify({ method: 'notifications/progress', params }).catch(() => {}); // the client went away: its signal ends the call
  };
}
