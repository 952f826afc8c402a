import { Server, type CallToolResult, type InputRequiredResult, type ServerContext, type Tool } from '@modelcontextprotocol/server';

import type { GatewayContent } from './content';
import { serveExposedContent } from './content-server';
import { declaresFormElicitation, type ApprovalStateCodec } from './elicit-approval';
import type { GatewayPrincipal } from './principal';
import { relayedProgress } from './progress';

/** How a call may ask the client (./elicit-approval.ts), and what a retried call brings back. */
export interface ClientAsk {
  /** The request declared form elicitation (2026-07-28): a call that needs approval also asks the client. */
  canElicit: boolean;
  /** A retried call's answers (untrusted: parsed where read). */
  inputResponses: Record<string, unknown> | undefined;
  /** The waiting call a retried call answers, from its verified request state. */
  approvalId: string | null;
  /**
   * Called every few seconds while the call waits for the person: a progress notification to a
   * client that asked for progress, so its own request timeout (the SDK's default is 60 s) can
   * start again while the person has not decided yet.
   */
  onWaiting?: (waitedMs: number, message?: string) => void;
  /** The upstream server's progress while the call runs, to a client that asked for progress (./progress.ts). */
  onProgress?: ReturnType<typeof relayedProgress>;
}

/** What the MCP server of one request asks of the gateway: the principal's exposed tools, and one call. */
export interface GatewayTools {
  list(principal: GatewayPrincipal): Promise<Tool[]>;
  call(
    principal: GatewayPrincipal,
    name: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
    ask: ClientAsk,
  ): Promise<CallToolResult | InputRequiredResult>;
  /** Seals and opens the request state of a call that asked the client. */
  stateCodec: ApprovalStateCodec;
  /** The exposed servers' resources and prompts (./content.ts). */
  content?: GatewayContent;
}

const INSTRUCTIONS =
  "The tools of the person's own Switchboard servers that they exposed to this client, named <server>__<tool> as in their chat. " +
  'Each call goes through their Switchboard consent rules and is recorded in their activity log under this client’s name; ' +
  'a call that needs their approval waits until they allow or deny it in Switchboard (or the wait ends), then returns.';

/** The MCP server for one request of one principal (built per request by the endpoint's handler). */
export function buildGatewayServer(tools: GatewayTools, principal: GatewayPrincipal): Server {
  const server = new Server(
    { name: 'switchboard', title: 'Switchboard', version: '1.0.0' },
    { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS, requestState: { verify: tools.stateCodec.verify } },
  );
  server.setRequestHandler('tools/list', async () => ({ tools: await tools.list(principal) }));
  server.setRequestHandler('tools/call', async (request, ctx) =>
    tools.call(principal, request.params.name, (request.params.arguments ?? {}) as Record<string, unknown>, ctx.mcpReq.signal, {
      // Only where the person said this client's window is theirs to answer (an agent could answer its own form).
      canElicit: principal.profile.askInClient === true && declaresFormElicitation(ctx.mcpReq.envelope),
      inputResponses: ctx.mcpReq.inputResponses,
      approvalId: ctx.mcpReq.requestState<{ approvalId: string }>()?.approvalId ?? null,
      onWaiting: waitingProgress(ctx),
      onProgress: relayedProgress(ctx),
    }),
  );
  if (tools.content) serveExposedContent(server, tools.content, principal);
  return server;
}

/** Progress while a call waits for approval, to a request that carried a progress token (else nothing to send). */
function waitingProgress(ctx: ServerContext): ClientAsk['onWaiting'] {
  const token = (ctx.mcpReq._meta as { progressToken?: string | number } | undefined)?.progressToken;
  if (token === undefined) return undefined;
  return (waitedMs, message = "Waiting for the person's approval in Switchboard") => {
    if (ctx.mcpReq.signal.aborted) return;
    ctx.mcpReq
      .notify({
        method: 'notifications/progress',
        params: { progressToken: token, progress: waitedMs, message },
      })
      .catch(() => {}); // the client went away: the wait ends by its signal
  };
}
