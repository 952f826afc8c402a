import type Anthropic from '@anthropic-ai/sdk';
import { z } from 'zod';

import { DECISION_KINDS, ELICITATION_MODES, INPUT_RESPONSE_ACTIONS, SIGN_IN_REASONS, TASK_STATUSES, VERDICTS } from '../vocabulary';
import { iso, jsonObject } from './common';

/**
 * The JSON columns of tool_calls: what the policy said and the person chose, a server's questions
 * and the answers, sign-in, found tools, an interactive view's context, annotations and the
 * result. See db/stored-json.ts for the rules every shape follows.
 */

// ── tool_calls.verdict: what the policy table said (lib/consent/policy.ts) ──────────────────
const verdictV1 = z.object({
  v: z.literal(1),
  verdict: z.enum(VERDICTS),
  reason: z.string(),
  warnings: z.array(z.string()),
  /** The grant the call was decided under (null: none, e.g. a host tool or a rejection). */
  grantId: z.string().nullable(),
  /** The grant's argument constraint: an edited input must meet it too. */
  constraint: jsonObject.nullable(),
  /**
   * Untrusted text was in the run's context when the verdict was given (absent in rows written
   * before grants): "Allow for this session" is then not offered for a tool that is not read-only.
   */
  tainted: z.boolean().optional(),
  /**
   * The person's organization makes every call of this tool ask (lib/consent/org-policy.ts): why,
   * in words. "Allow for this session" is then not offered. Absent: it does not.
   */
  orgAsks: z.string().optional(),
});
/** Version 0 was stored in the column `policy` and called the verdict `decision`. */
const verdictV0 = z
  .object({
    decision: z.enum(VERDICTS),
    reason: z.string(),
    warnings: z.array(z.string()).optional(),
    grantId: z.string().nullish(),
    constraint: jsonObject.nullish(),
  })
  .transform((o): StoredVerdict => ({
    v: 1,
    verdict: o.decision,
    reason: o.reason,
    warnings: o.warnings ?? [],
    grantId: o.grantId ?? null,
    constraint: o.constraint ?? null,
  }));
export type StoredVerdict = z.infer<typeof verdictV1>;
export const storedVerdict = z.union([verdictV1, verdictV0]);

// ── tool_calls.decision: what the person chose ─────────────────────────────────────────────
const decisionV1 = z.object({
  v: z.literal(1),
  kind: z.enum(DECISION_KINDS),
  /** The user who decided. */
  by: z.string(),
  at: iso,
  /** A deny's reason for the model. */
  reason: z.string().optional(),
  /** Edit-then-approve: the hash of the arguments the model proposed (the call's hash is the edited one's). */
  editedFrom: z.string().optional(),
});
/**
 * Version 0 also held `kind: 'auto'` for calls the policy allowed (now only the verdict says
 * so) and the elicitation answers (now tool_calls.input_responses; migration 0004 moved them).
 */
const decisionV0 = z
  .looseObject({
    kind: z.enum([...DECISION_KINDS, 'auto']),
    by: z.string().optional(),
    at: iso.optional(),
    reason: z.string().optional(),
    edited: z.boolean().optional(),
    originalArgsHash: z.string().optional(),
  })
  .transform((o): StoredDecision | null =>
    o.kind === 'auto'
      ? null
      : {
          v: 1,
          kind: o.kind,
          by: o.by ?? '',
          at: o.at ?? new Date(0).toISOString(),
          ...(o.reason !== undefined && { reason: o.reason }),
          ...(o.edited && o.originalArgsHash && { editedFrom: o.originalArgsHash }),
        },
  );
export type StoredDecision = z.infer<typeof decisionV1>;
export const storedDecision = z.union([decisionV1, decisionV0]);

// ── tool_calls.input_responses: the person's answers to a server's elicitation ─────────────
export const inputResponse = z.strictObject({
  action: z.enum(INPUT_RESPONSE_ACTIONS, { error: `must be one of ${INPUT_RESPONSE_ACTIONS.join(', ')}` }),
  content: z.record(z.string(), z.unknown(), { error: 'must be a JSON object' }).optional(),
});
export type InputResponse = z.infer<typeof inputResponse>;
const inputResponsesV1 = z.object({
  v: z.literal(1),
  responses: z.record(z.string(), inputResponse),
  by: z.string(),
  at: iso,
  /** The round answered: the call's version while it waited (`ToolCallView.inputRound`); absent on rows written before it. */
  round: z.number().int().optional(),
});
export type StoredInputResponses = z.infer<typeof inputResponsesV1>;
export const storedInputResponses = inputResponsesV1;

// ── tool_calls.input_requests: what the server asked (input_required), stored as received ──
// A server's words, so unknown fields pass through; only what the host reads is typed.
export const elicitationRequest = z.looseObject({
  method: z.string().optional(),
  params: z
    .looseObject({
      mode: z.enum(ELICITATION_MODES).optional(),
      message: z.string().optional(),
      // Elicitation forms are flat objects of primitive fields (MCP spec), which the page renders.
      requestedSchema: z
        .looseObject({
          properties: z
            .record(
              z.string(),
              z.looseObject({
                type: z.string().optional(),
                title: z.string().optional(),
                description: z.string().optional(),
                enum: z.array(z.unknown()).optional(),
                default: z.unknown().optional(),
              }),
            )
            .optional(),
          required: z.array(z.string()).optional(),
        })
        .optional(),
      url: z.string().optional(),
      elicitationId: z.string().optional(),
    })
    .optional(),
});
export type ElicitationRequest = z.infer<typeof elicitationRequest>;
export type ElicitationField = NonNullable<NonNullable<NonNullable<ElicitationRequest['params']>['requestedSchema']>['properties']>[string];
export const storedInputRequests = z.record(z.string(), elicitationRequest);
export type StoredInputRequests = z.infer<typeof storedInputRequests>;

// ── tool_calls.sign_in: the server that needs the person to sign in before the call can run ──
const signInV1 = z.object({
  v: z.literal(1),
  serverId: z.string(),
  serverName: z.string(),
  /** Scopes the server asked for (step-up), when it said. */
  scopes: z.array(z.string()).optional(),
  reason: z.enum(SIGN_IN_REASONS),
  at: iso,
});
export type StoredSignIn = z.infer<typeof signInV1>;
export const storedSignIn = signInV1;

// ── tool_calls.found_tools: the tools a `switchboard__search_tools` call found ──────────────
// Offered from the next step of the same run (lib/agent/step-offer.ts); by identity, not by the
// model-facing name, which depends on the other tools of the step.
const foundToolsV1 = z.object({ v: z.literal(1), tools: z.array(z.object({ serverId: z.string(), tool: z.string() })) });
export type StoredFoundTools = z.infer<typeof foundToolsV1>;
export const storedFoundTools = foundToolsV1;

// ── tool_calls.view_context: the last `ui/update-model-context` of the call's interactive view ──
// Text blocks joined, and the structured content as sent; each update replaces the last (MCP Apps).
const viewContextV1 = z.object({ v: z.literal(1), at: iso, text: z.string(), structured: jsonObject.optional() });
export type StoredViewContext = z.infer<typeof viewContextV1>;
export const storedViewContext = viewContextV1;
// ── tool_calls.task: the server-side task a call answered with (MCP Tasks) ─────────────────
// Written when the server hands back a task, so whichever instance drives the run next follows the
// same task id (lib/agent/follow-task.ts) rather than calling the tool again.
const taskV1 = z.object({
  v: z.literal(1),
  taskId: z.string(),
  /** The server that runs it (the call's server, as it was when the task began). */
  serverId: z.string(),
  status: z.enum(TASK_STATUSES),
  statusMessage: z.string().optional(),
  /** The server's suggested polling interval. */
  pollIntervalMs: z.number().optional(),
  /** When the task began, per Switchboard's clock. */
  at: iso,
});
export type StoredTask = z.infer<typeof taskV1>;
export const storedTask = taskV1;

// ── tool_calls.annotations and tool_calls.result ───────────────────────────────────────────
/** The tool's hints as listed when it was called (a server's words: extra fields pass through). */
export const storedAnnotations = z.looseObject({
  title: z.string().optional(),
  readOnlyHint: z.boolean().optional(),
  destructiveHint: z.boolean().optional(),
  idempotentHint: z.boolean().optional(),
  openWorldHint: z.boolean().optional(),
});
export type StoredAnnotations = z.infer<typeof storedAnnotations>;

const toolResultShape = z.looseObject({
  type: z.literal('tool_result'),
  tool_use_id: z.string(),
  is_error: z.boolean().optional(),
  content: z.union([z.string(), z.array(z.looseObject({ type: z.string() }))]).optional(),
});
/** The Messages API `tool_result` block sent back to the model, verbatim. */
export const storedToolResult = z.custom<Anthropic.ToolResultBlockParam>((value) => toolResultShape.safeParse(value).success, {
  error: 'must be a tool_result block with a tool_use_id and text or image content',
});
export type StoredToolResult = Anthropic.ToolResultBlockParam;
