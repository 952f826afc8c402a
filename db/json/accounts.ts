import { z } from 'zod';

/**
 * The JSON columns of the account tables: a personal access token's profile. See db/stored-json.ts
 * for the rules every shape follows.
 */

// ── access_tokens.profile: which of the person's tools a token exposes on /mcp (lib/gateway) ──
// By identity (server id + tool name), as grants are; `name` is the `<namespace>__<tool>` the person
// picked, kept to show them what they chose. Empty: nothing is exposed (the default).
const tokenProfileV1 = z.object({
  v: z.literal(1),
  tools: z.array(z.object({ serverId: z.string(), tool: z.string(), name: z.string() })),
  // A call that needs approval is also asked in the client's own window (MCP elicitation), and its
  // answer there counts. Off (absent) by default: an unattended agent could answer its own form.
  askInClient: z.boolean().optional(),
  // The client sees the servers' own tool and prompt names instead of `<server>__<tool>`, while
  // nothing clashes (lib/gateway/client-names.ts). Off (absent) by default.
  ownNames: z.boolean().optional(),
  // The client also reads the exposed servers' resources and prompts (and asks them for
  // completions), not only calls their tools. Off (absent) by default: exposing one tool of a server
  // must not hand over everything the server holds (the notes server's every note).
  content: z.boolean().optional(),
  // Switchboard's own agent is offered to the client as a tool (`switchboard_ask`, lib/gateway/ask-tool.ts):
  // a turn in a conversation of the person's, with their model and instructions. Off (absent) by default.
  agentTool: z.boolean().optional(),
});
export type StoredTokenProfile = z.infer<typeof tokenProfileV1>;
export const storedTokenProfile = tokenProfileV1;
export const EMPTY_TOKEN_PROFILE: StoredTokenProfile = { v: 1, tools: [] };
