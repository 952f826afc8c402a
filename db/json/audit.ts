import { z } from 'zod';

import {
  AUDIT_GRANT_CHANGES,
  AUDIT_OUTCOMES,
  AUDIT_VERDICTS,
  CALL_ASKERS,
  DECISION_KINDS,
  ELICITATION_MODES,
  GATEWAY_CLIENT_KINDS,
  INPUT_RESPONSE_ACTIONS,
  TRUST_LEVELS,
} from '../vocabulary';
import { iso, jsonObject } from './common';

/**
 * The JSON column of audit_entries: what one entry records (lib/audit). See db/stored-json.ts for
 * the rules every shape follows.
 */

// ── audit_entries.content: what one audit entry records (lib/audit) ─────────────────────────
// The entry holds its own copies (conversation title, server name, tool): it outlives the
// conversation. Covered by the entry's HMAC, so it is written once and never changed.
const auditConversation = z.object({ id: z.string(), title: z.string() });
const auditServer = z.object({ id: z.string().nullable(), name: z.string().nullable() });
const auditToolCallV1 = z.object({
  v: z.literal(1),
  kind: z.literal('tool_call'),
  toolCallId: z.string(),
  runId: z.string(),
  conversation: auditConversation,
  server: auditServer,
  tool: z.string().nullable(),
  /** The name the model used (`<namespace>__<tool>`). */
  modelName: z.string(),
  trust: z.enum(TRUST_LEVELS).nullable(),
  /** The arguments the model proposed, exactly; `executed` differs only when the person edited them. */
  arguments: z.object({
    proposed: z.unknown(),
    proposedHash: z.string(),
    executed: z.unknown(),
    executedHash: z.string(),
    edited: z.boolean(),
  }),
  verdict: z.object({
    kind: z.enum(AUDIT_VERDICTS),
    /** The policy table's rule (its reason in words) or the rejection's reason. */
    rule: z.string().nullable(),
    /** Who decided (a user id), for `allowed` / `denied`. */
    by: z.string().nullable(),
    decision: z.enum(DECISION_KINDS).nullable(),
    /** A deny's reason. */
    reason: z.string().nullable(),
    warnings: z.array(z.string()),
  }),
  grant: z.object({ id: z.string().nullable(), constraint: jsonObject.nullable() }),
  outcome: z.enum(AUDIT_OUTCOMES),
  timing: z.object({ proposedAt: iso, startedAt: iso.nullable(), endedAt: iso.nullable(), durationMs: z.number().nullable() }),
  attempts: z.number(),
  /**
   * Present when the call was not the model's: asked by the interactive view of the call
   * `toolCallId` (MCP Apps). Entries of the model's calls leave it out, as they always did.
   */
  askedBy: z.object({ by: z.enum(CALL_ASKERS).exclude(['model']), toolCallId: z.string() }).optional(),
  /**
   * Present when the server asked the person something mid-call (elicitation): who answered, when,
   * and how — per asked key, its mode, the action, and for a link the URL they were sent to. A
   * form's content is left out (the entry says that they answered, not what).
   */
  input: z
    .object({
      by: z.string(),
      at: iso,
      answers: z.record(
        z.string(),
        z.object({ mode: z.enum(ELICITATION_MODES), action: z.enum(INPUT_RESPONSE_ACTIONS), url: z.string().optional() }),
      ),
    })
    .optional(),
  /** The tool_result block sent to the model: its size and SHA-256 over its RFC 8785 encoding. */
  result: z
    .object({
      isError: z.boolean(),
      bytes: z.number(),
      sha256: z.string(),
      /** Characters of the whole result, when it was cut for the model. */
      totalChars: z.number().nullable(),
      truncated: z.boolean(),
    })
    .nullable(),
});
const auditGrantV1 = z.object({
  v: z.literal(1),
  kind: z.literal('grant'),
  change: z.enum(AUDIT_GRANT_CHANGES),
  /** `tool:<serverId>/<tool>` or `server:<serverId>/*`. */
  scope: z.string(),
  grantId: z.string().nullable(),
  conversation: auditConversation.nullable(),
  server: auditServer.nullable(),
  tool: z.string().nullable(),
  /** Who made the change (a user id); sign-out is the person's own. */
  by: z.string().nullable(),
  /** The grant's settings after the change (what the person sees in the panel). */
  settings: z
    .object({
      autoApprove: z.boolean().optional(),
      constraint: jsonObject.nullable().optional(),
      expiresAt: iso.nullable().optional(),
      expiresIn: z.string().optional(),
    })
    .nullable(),
  /** The signed-in session the grant belonged to. */
  sessionId: z.string().nullable(),
});
/**
 * A call an MCP client made through `/mcp` (lib/gateway): no conversation, no model; the client
 * is named instead (a personal access token, by id and by the name the person gave it).
 */
const auditClientCallV1 = z.object({
  v: z.literal(1),
  kind: z.literal('client_call'),
  /** Unique per call (the gateway's own id; there is no tool call row). */
  callId: z.string(),
  // `oauth_client`: connected through Switchboard's authorization server; `id` is its grant (an access_tokens row) either way.
  client: z.object({ kind: z.enum(GATEWAY_CLIENT_KINDS), id: z.string(), name: z.string() }),
  server: auditServer,
  tool: z.string(),
  /** The name the client used (`<namespace>__<tool>`). */
  name: z.string(),
  trust: z.enum(TRUST_LEVELS),
  arguments: z.object({ value: z.unknown(), hash: z.string() }),
  verdict: z.object({ kind: z.enum(AUDIT_VERDICTS), rule: z.string().nullable(), warnings: z.array(z.string()) }),
  outcome: z.enum(AUDIT_OUTCOMES),
  timing: z.object({ startedAt: iso.nullable(), endedAt: iso, durationMs: z.number().nullable() }),
  /** What went back to the client: its size and SHA-256 over its RFC 8785 encoding. */
  result: z.object({ isError: z.boolean(), bytes: z.number(), sha256: z.string() }).nullable(),
  /** A `switchboard_ask` call (lib/gateway/ask-tool.ts): the conversation its turn is in. Absent for other tools. */
  conversation: z.object({ id: z.string(), title: z.string() }).optional(),
});
export type StoredAuditToolCall = z.infer<typeof auditToolCallV1>;
export type StoredAuditGrant = z.infer<typeof auditGrantV1>;
export type StoredAuditClientCall = z.infer<typeof auditClientCallV1>;
export const storedAuditContent = z.discriminatedUnion('kind', [auditToolCallV1, auditGrantV1, auditClientCallV1]);
export type StoredAuditContent = z.infer<typeof storedAuditContent>;
