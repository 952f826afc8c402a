import type Anthropic from '@anthropic-ai/sdk';
import type { AuthorizationServerMetadata, OAuthProtectedResourceMetadata } from '@modelcontextprotocol/client';
import { OAuthClientInformationSchema, OAuthTokensSchema } from '@modelcontextprotocol/core';
import { z } from 'zod';

import {
  AUDIT_GRANT_CHANGES,
  AUDIT_OUTCOMES,
  AUDIT_VERDICTS,
  CALL_ASKERS,
  DECISION_KINDS,
  DEFAULT_THINKING_EFFORT,
  INPUT_RESPONSE_ACTIONS,
  SIGN_IN_REASONS,
  TAINT_SOURCES,
  THINKING_EFFORTS,
  TRUST_LEVELS,
  VERDICTS,
} from './vocabulary';

/**
 * The shape of every JSON column, declared once. Rows are parsed through these on read (in
 * db/queries), never cast, and written only in the current version. Each stored object carries
 * `v`; a row written before versioning has none and is read as version 0, converted here to the
 * current shape, so rows from an older release keep loading. db/stored-json.fixtures.ts keeps
 * a sample of every version; its test fails when a change would stop one of them from parsing.
 */

const iso = z.string().min(1);
const jsonObject = z.record(z.string(), z.unknown());

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
});
export type StoredInputResponses = z.infer<typeof inputResponsesV1>;
export const storedInputResponses = inputResponsesV1;

// ── tool_calls.input_requests: what the server asked (input_required), stored as received ──
// A server's words, so unknown fields pass through; only what the host reads is typed.
export const elicitationRequest = z.looseObject({
  method: z.string().optional(),
  params: z
    .looseObject({
      mode: z.enum(['form', 'url']).optional(),
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

// ── conversations.tainted: how text from an untrusted server first entered the model's context ──
const taintV1 = z.object({
  v: z.literal(1),
  at: iso,
  source: z.enum(TAINT_SOURCES),
  serverId: z.string(),
  serverName: z.string(),
  /** The tool whose description, result, question or progress it was, when known. */
  tool: z.string().optional(),
  /** The prompt the person ran (source `prompt`). */
  prompt: z.string().optional(),
  /** The resource the person attached (source `resource`). */
  uri: z.string().optional(),
});
export type StoredTaint = z.infer<typeof taintV1>;
export const storedTaint = taintV1;

// ── access_tokens.profile: which of the person's tools a token exposes on /mcp (lib/gateway) ──
// By identity (server id + tool name), as grants are; `name` is the `<namespace>__<tool>` the person
// picked, kept to show them what they chose. Empty: nothing is exposed (the default).
const tokenProfileV1 = z.object({
  v: z.literal(1),
  tools: z.array(z.object({ serverId: z.string(), tool: z.string(), name: z.string() })),
});
export type StoredTokenProfile = z.infer<typeof tokenProfileV1>;
export const storedTokenProfile = tokenProfileV1;
export const EMPTY_TOKEN_PROFILE: StoredTokenProfile = { v: 1, tools: [] };

// ── conversations.forked_from: the share link's snapshot a conversation was continued from ──
const forkOriginV1 = z.object({
  v: z.literal(1),
  /** The shared conversation's title at the snapshot. */
  title: z.string(),
  snapshotAt: iso,
  /** Whether the owner had hidden tool arguments and results (the copies then say so). */
  toolDetailsHidden: z.boolean(),
});
export type StoredForkOrigin = z.infer<typeof forkOriginV1>;
export const storedForkOrigin = forkOriginV1;

// ── conversations.thinking and runs.thinking: extended thinking, per conversation, fixed per run ──
// `budgetTokens` is what a model that takes a budget may think; `effort` is how hard a model that
// only thinks adaptively works (lib/agent/thinking.ts picks one per model).
const thinkingV2 = z.object({ v: z.literal(2), enabled: z.boolean(), budgetTokens: z.number().int(), effort: z.enum(THINKING_EFFORTS) });
export type StoredThinking = z.infer<typeof thinkingV2>;
/** Version 1 had no effort: the API's default. */
const thinkingV1 = z
  .object({ v: z.literal(1), enabled: z.boolean(), budgetTokens: z.number().int() })
  .transform((o): StoredThinking => ({ ...o, v: 2, effort: DEFAULT_THINKING_EFFORT }));
export const storedThinking = z.union([thinkingV2, thinkingV1]);

// ── runs.error, runs.usage, runs.name_map ──────────────────────────────────────────────────
export const storedRunError = z.object({ v: z.literal(1).optional(), code: z.string(), message: z.string() });
export type StoredRunError = z.infer<typeof storedRunError>;

/**
 * A turn's tokens, summed over its model calls: input (not cached), output, and the prompt cache's
 * writes and reads (absent on rows from before prompt caching: zero).
 */
export const storedUsage = z.looseObject({
  inputTokens: z.number(),
  outputTokens: z.number(),
  cacheCreationInputTokens: z.number().optional(),
  cacheReadInputTokens: z.number().optional(),
});
export type StoredUsage = z.infer<typeof storedUsage>;

export const storedNameMap = z.record(z.string(), z.object({ serverId: z.string(), tool: z.string() }));
export type StoredNameMap = z.infer<typeof storedNameMap>;

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

// ── messages.content: Anthropic-native content blocks, stored verbatim ────────────────────
const contentBlocksShape = z.array(z.looseObject({ type: z.string() }));
/** A message's content as the Messages API takes it back: an array of typed blocks. */
export const storedMessageContent = z.custom<Anthropic.ContentBlockParam[]>((value) => contentBlocksShape.safeParse(value).success, {
  error: 'must be an array of content blocks, each with a type',
});
export type StoredMessageContent = Anthropic.ContentBlockParam[];

// ── messages.origin: what an MCP server put into a user message (a prompt, resources) ──────
const promptOriginV1 = z.object({
  v: z.literal(1),
  kind: z.literal('prompt'),
  serverId: z.string(),
  serverName: z.string(),
  name: z.string(),
});
const resourcesOriginV1 = z.object({
  v: z.literal(1),
  kind: z.literal('resources'),
  resources: z.array(
    z.object({
      serverId: z.string(),
      serverName: z.string(),
      uri: z.string(),
      /** The resource's name as listed (when the person picked it from a list). */
      name: z.string().optional(),
      mimeType: z.string().optional(),
      /** Characters of its text before any cut, and whether the model got only the first part. */
      chars: z.number().int().optional(),
      truncated: z.boolean().optional(),
    }),
  ),
});
export const storedMessageOrigin = z.discriminatedUnion('kind', [promptOriginV1, resourcesOriginV1]);
export type StoredMessageOrigin = z.infer<typeof storedMessageOrigin>;

// ── oauth_credentials.auth_server and oauth_flows.discovery (lib/mcp/oauth) ───────────────────
const authServerShape = z.looseObject({
  issuer: z.string().min(1),
  authorization_endpoint: z.string().min(1),
  token_endpoint: z.string().min(1),
  response_types_supported: z.array(z.string()),
});
/** An authorization server's metadata (RFC 8414) as discovered: its words, extra fields kept. */
const authServerMetadata = z.custom<AuthorizationServerMetadata>((value) => authServerShape.safeParse(value).success, {
  error: 'must be authorization server metadata with issuer, authorization_endpoint and token_endpoint',
});
const resourceMetadata = z.custom<OAuthProtectedResourceMetadata>(
  (value) => z.looseObject({ resource: z.string().min(1) }).safeParse(value).success,
  { error: 'must be protected resource metadata with a resource' },
);
/** What refreshing and revoking a credential need to know about its authorization server. */
export const storedAuthServer = z.object({ v: z.literal(1), metadata: authServerMetadata });
export type StoredAuthServer = z.infer<typeof storedAuthServer>;
/** The discovery an authorization request was started with; the callback leg is checked against it. */
export const storedOAuthDiscovery = z.object({
  v: z.literal(1),
  authorizationServerUrl: z.string().min(1),
  resourceMetadataUrl: z.string().optional(),
  resourceMetadata: resourceMetadata.optional(),
  authorizationServerMetadata: authServerMetadata,
});
export type StoredOAuthDiscovery = z.infer<typeof storedOAuthDiscovery>;

// ── mcp_servers.reviewed_tools: what the person saw and approved of a server's tools ──────
/**
 * Tool name → the fingerprint (lib/mcp/catalog.ts) it had when the person enabled the server.
 * Version 2: fingerprints cover the tool's title. `beforeTitles`: approvals of version 1, whose
 * fingerprints did not, until each is pinned to the tool as first listed after the upgrade.
 */
const reviewedToolsV2 = z.object({
  v: z.literal(2),
  tools: z.record(z.string(), z.string()),
  beforeTitles: z.record(z.string(), z.string()).optional(),
});
/** Version 1: fingerprints without the title. */
const reviewedToolsV1 = z
  .object({ v: z.literal(1), tools: z.record(z.string(), z.string()) })
  .transform((o): StoredReviewedTools => ({ v: 2, tools: {}, ...(Object.keys(o.tools).length > 0 && { beforeTitles: o.tools }) }));
export type StoredReviewedTools = z.infer<typeof reviewedToolsV2>;
/** What the column may hold (the column's default is still an empty version 1). */
export type StoredReviewedToolsAnyVersion = z.input<typeof reviewedToolsV2> | z.input<typeof reviewedToolsV1>;
export const storedReviewedTools = z.union([reviewedToolsV2, reviewedToolsV1]);

// ── mcp_servers.headers_sealed, once opened: header name → value ──────────────────────────
export const sealedHeaders = z.record(z.string(), z.string());

// ── oauth_credentials.tokens and client_info, once opened ─────────────────────────────────────
// The SDK's own schemas (what `saveTokens` / `saveClientInformation` were given), loose: fields
// they do not name (a registration's metadata, a provider's extras) are kept, not stripped, since
// an opened client is sealed again with the next tokens.
/** Tokens as the SDK stored them (OAuth 2.1 token response, plus the issuer it stamps). */
export const sealedOAuthTokens = OAuthTokensSchema.loose();
/** Client information: registered (RFC 7591), pre-registered or a client ID metadata document URL. */
export const sealedOAuthClient = OAuthClientInformationSchema.loose();

// ── tool_catalogs.catalog: a server's usable tools as last listed ──────────────────────────
const catalogToolShape = z.object({
  serverId: z.string(),
  namespace: z.string(),
  serverName: z.string(),
  trust: z.enum(TRUST_LEVELS),
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  inputSchema: jsonObject,
  outputSchema: jsonObject.optional(),
  annotations: storedAnnotations,
  declaredAnnotations: storedAnnotations.optional(),
  fingerprint: z.string(),
  untitledFingerprint: z.string().optional(),
  /** Its interactive view (MCP Apps); absent in catalogs stored before views were kept. */
  view: z.object({ resourceUri: z.string(), modelVisible: z.boolean(), appCallable: z.literal(false).optional() }).optional(),
});
const catalogV1 = z.object({
  v: z.literal(1),
  tools: z.array(catalogToolShape),
  skipped: z.array(z.object({ serverId: z.string(), name: z.string(), reason: z.string() })),
  truncated: z.boolean(),
});
/** Version 0 had the same fields and no `v`. */
const catalogV0 = catalogV1.omit({ v: true }).transform((o): StoredCatalog => ({ v: 1, ...o }));
export type StoredCatalog = z.infer<typeof catalogV1>;
export const storedCatalog = z.union([catalogV1, catalogV0]);

// ── tool_grants.covered: what a grant was given for ──────────────────────────────────────
/** A tool's definition as the person saw it when they granted it: the panel diffs it against today's. */
const grantedToolV1 = z.object({
  fingerprint: z.string(),
  title: z.string().nullable(),
  description: z.string().nullable(),
  inputSchema: jsonObject,
  outputSchema: jsonObject.nullable(),
  annotations: storedAnnotations,
  serverUrl: z.string(),
});
export type GrantedTool = z.infer<typeof grantedToolV1>;
/**
 * Tool name → its definition when granted. A tool-scope grant covers one tool; a server-wide
 * grant the tools the server had then (a tool added later is not in it, so not covered).
 */
const grantCoverageV1 = z.object({ v: z.literal(1), tools: z.record(z.string(), grantedToolV1) });
export type StoredGrantCoverage = z.infer<typeof grantCoverageV1>;
export const storedGrantCoverage = grantCoverageV1;

/** A grant's argument constraint: a JSON Schema fragment the input must also satisfy. */
export const storedConstraint = jsonObject;
export type StoredConstraint = z.infer<typeof storedConstraint>;

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
  client: z.object({ kind: z.literal('access_token'), id: z.string(), name: z.string() }),
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
});
export type StoredAuditToolCall = z.infer<typeof auditToolCallV1>;
export type StoredAuditGrant = z.infer<typeof auditGrantV1>;
export type StoredAuditClientCall = z.infer<typeof auditClientCallV1>;
export const storedAuditContent = z.discriminatedUnion('kind', [auditToolCallV1, auditGrantV1, auditClientCallV1]);
export type StoredAuditContent = z.infer<typeof storedAuditContent>;

// ── reading ────────────────────────────────────────────────────────────────────────────────

/** A stored value that no version of its schema accepts: the row is damaged, not the request. */
export class StoredShapeError extends Error {
  constructor(column: string, rowId: string, issue: string) {
    super(`The stored ${column} of row ${rowId} has an unknown shape: ${issue}`);
  }
}

/** Parses one column of one row; null stays null. */
export function parseStored<S extends z.ZodType>(schema: S, value: unknown, column: string, rowId: string): z.output<S> | null {
  if (value === null || value === undefined) return null;
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new StoredShapeError(column, rowId, issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : 'invalid');
  }
  return parsed.data;
}
