import { z } from 'zod';

import { GATEWAY_CLIENT_KINDS } from '../vocabulary';

// ── client_approvals.warnings: the decision table's warnings for the person ────────────────
export const storedApprovalWarnings = z.array(z.string());

// ── conversations.started_by: the MCP client that started a conversation through `switchboard_ask` ──
// The client (a personal access token or a connected OAuth client: `id` is its access_tokens row)
// and its name when it started it, so the sidebar says where the conversation came from even after
// the token is renamed or revoked. Only that client may follow up in it (lib/gateway/ask-tool.ts).
const conversationClientV1 = z.object({
  v: z.literal(1),
  kind: z.enum(GATEWAY_CLIENT_KINDS),
  id: z.string(),
  name: z.string(),
});
export type StoredConversationClient = z.infer<typeof conversationClientV1>;
export const storedConversationClient = conversationClientV1;
