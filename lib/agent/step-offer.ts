import type { Db } from '@/db/connection';
import { hasStoredResults } from '@/db/queries/tool-calls';
import type { RunGrantContext } from '@/lib/consent/grant-source';

import { HOST_SERVER, READ_RESULT_TOOL } from './read-result-tool';
import { offerTools, withHostTool, type ToolHost, type ToolOffer } from './tool-host';

/**
 * Exactly the tools the model is offered on a step of this conversation: the granted ones
 * (`offerTools`) and, once a result was too large to send whole, the host's paging tool. The
 * engine builds each step with it, and the Tools panel shows "what the model sees" with it, so
 * the two cannot differ.
 */
export async function offerForStep(db: Db, host: ToolHost, ctx: RunGrantContext): Promise<ToolOffer> {
  const offer = await offerTools(host, ctx);
  return (await hasStoredResults(db, ctx.conversationId)) ? withHostTool(offer, READ_RESULT_TOOL, HOST_SERVER) : offer;
}
