/**
 * The words the database stores, each declared once. Everything else — the engine, the HTTP
 * API, the UI — imports these unions, so a new status fails to compile wherever it is not yet
 * handled (a label, a badge, a branch). The state machines are drawn in docs/ARCHITECTURE.md.
 */

export const RUN_STATUSES = [
  'running',
  'awaiting_approval',
  'awaiting_input',
  'awaiting_sign_in',
  'completed',
  'failed',
  'cancelled',
] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** A run in one of these needs its conversation: a new message gets 409 until it ends. */
export const ACTIVE_RUN_STATUSES = [
  'running',
  'awaiting_approval',
  'awaiting_input',
  'awaiting_sign_in',
] as const satisfies readonly RunStatus[];
export type ActiveRunStatus = (typeof ACTIVE_RUN_STATUSES)[number];

/** A run paused for a person: nobody drives it until they decide, answer or sign in. */
export const PAUSED_RUN_STATUSES = ['awaiting_approval', 'awaiting_input', 'awaiting_sign_in'] as const satisfies readonly RunStatus[];
export type PausedRunStatus = (typeof PAUSED_RUN_STATUSES)[number];

export const ENDED_RUN_STATUSES = ['completed', 'failed', 'cancelled'] as const satisfies readonly RunStatus[];
export type EndedRunStatus = (typeof ENDED_RUN_STATUSES)[number];

export const TOOL_CALL_STATUSES = [
  'proposed',
  'pending_approval',
  'approved',
  'denied',
  'auto_approved',
  'rejected',
  'executing',
  'awaiting_input',
  'awaiting_sign_in',
  'succeeded',
  'errored',
  'timed_out',
  'unknown',
  'cancelled',
] as const;
export type ToolCallStatus = (typeof TOOL_CALL_STATUSES)[number];

/**
 * A call in one of these waits for a person, and its run is paused (or pausing) for it: the
 * status the run waits in is the one paired here.
 */
export const WAITING_CALL_STATUSES = {
  pending_approval: 'awaiting_approval',
  awaiting_input: 'awaiting_input',
  awaiting_sign_in: 'awaiting_sign_in',
} as const satisfies Partial<Record<ToolCallStatus, PausedRunStatus>>;
export type WaitingCallStatus = keyof typeof WAITING_CALL_STATUSES;

/** What a call waited for before it could run: the person's decision, their answer to the server, or their sign-in to it. */
/**
 * Who asked for a tool call: the model (a tool_use block of a turn), or the interactive view (MCP
 * Apps) shown in another call's card, through its `tools/call`. Both go through the same consent.
 */
export const CALL_ASKERS = ['model', 'view'] as const;
export type CallAsker = (typeof CALL_ASKERS)[number];

export const WAIT_REASONS = ['approval', 'input', 'sign_in'] as const;
export type WaitReason = (typeof WAIT_REASONS)[number];

/**
 * The tool ran and its server answered (an error result is still the server's answer). Only such a
 * call shows its interactive view: a denied, rejected, cancelled or timed-out call has a result of
 * ours, and its view must not load with the arguments the person refused, nor call tools for it.
 */
export const RAN_CALL_STATUSES = ['succeeded', 'errored'] as const satisfies readonly ToolCallStatus[];
export const callRan = (status: ToolCallStatus): boolean => (RAN_CALL_STATUSES as readonly ToolCallStatus[]).includes(status);

/** A call in one of these has its result: it will not run (again). */
export const FINISHED_CALL_STATUSES = [
  'denied',
  'rejected',
  'succeeded',
  'errored',
  'timed_out',
  'unknown',
  'cancelled',
] as const satisfies readonly ToolCallStatus[];

/** Finished without the tool doing what was asked (shown as a failure). */
export const FAILED_CALL_STATUSES = ['denied', 'rejected', 'errored', 'timed_out', 'unknown'] as const satisfies readonly ToolCallStatus[];

/** The policy table's answer for one call (lib/consent/policy.ts). Never the person's choice. */
export const VERDICTS = ['auto', 'ask', 'reject'] as const;
export type Verdict = (typeof VERDICTS)[number];

/** What the person chose for a call that asked. */
export const DECISION_KINDS = ['allow_once', 'allow_session', 'deny'] as const;
export type DecisionKind = (typeof DECISION_KINDS)[number];

/** How the person answered one elicitation request of a server. */
export const INPUT_RESPONSE_ACTIONS = ['accept', 'decline', 'cancel'] as const;
export type InputResponseAction = (typeof INPUT_RESPONSE_ACTIONS)[number];

/** What a server's elicitation asks for: a form filled in here, or a step on a web page of its own (a link). */
export const ELICITATION_MODES = ['form', 'url'] as const;
export type ElicitationMode = (typeof ELICITATION_MODES)[number];

/**
 * Why a server needs the person to sign in before a call can run: never connected, the
 * credential expired and cannot be refreshed, the tool needs more scopes (step-up), or the
 * provider revoked it.
 */
export const SIGN_IN_REASONS = ['first_use', 'expired', 'insufficient_scope', 'revoked'] as const;
export type SignInReason = (typeof SIGN_IN_REASONS)[number];

/**
 * A server-side task's status (MCP Tasks): a call that answered with a task is followed until its
 * task is one of the last three (lib/mcp/follow-task.ts). `input_required` is followed like `working`.
 */
export const TASK_STATUSES = ['working', 'input_required', 'completed', 'failed', 'cancelled'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];
export const ENDED_TASK_STATUSES = ['completed', 'failed', 'cancelled'] as const satisfies readonly TaskStatus[];
/** Whether a tool may run as a task, as its `execution.taskSupport` says (absent: it never does). */
export const TASK_SUPPORT = ['optional', 'required'] as const;

export const TRUST_LEVELS = ['trusted', 'untrusted'] as const;
export type Trust = (typeof TRUST_LEVELS)[number];

/** How a user-added MCP server answered the last time it was tried (test, refresh, a turn's listing). */
export const SERVER_STATUSES = ['unchecked', 'connected', 'needs_sign_in', 'unreachable', 'protocol_error'] as const;
export type ServerStatus = (typeof SERVER_STATUSES)[number];

/** The transport a server was last reached over: Streamable HTTP, or the old HTTP+SSE. */
export const SERVER_TRANSPORTS = ['streamable_http', 'sse'] as const;
export type ServerTransport = (typeof SERVER_TRANSPORTS)[number];

/** The plans a user can be on (`users.plan`); each has its limits in `lib/limits.ts` `PLAN_LIMITS`. */
export const PLANS = ['free', 'pro', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];

/**
 * A person's role in an organization (`org_memberships.role`): an owner and an admin invite and
 * set roles (an admin never touches an owner), a member only belongs. Most powerful first.
 */
export const ORG_ROLES = ['owner', 'admin', 'member'] as const;
export type OrgRole = (typeof ORG_ROLES)[number];
/** How a role is named on screen. */
export const ORG_ROLE_LABELS: Record<OrgRole, string> = { owner: 'Owner', admin: 'Admin', member: 'Member' };

/** How an organization's shared server authenticates: each member's own OAuth connection, or one credential the organization keeps. */
export const ORG_SERVER_AUTH = ['oauth', 'shared'] as const;
export type OrgServerAuth = (typeof ORG_SERVER_AUTH)[number];

/**
 * The tool annotations an organization's policy may name as "never run without asking"
 * (`organizations.policy`, lib/consent/org-policy.ts), read as the MCP spec defines them: a tool
 * is destructive unless a trusted server says it only reads or is not destructive, and reaches
 * outside systems unless a trusted server says it does not.
 */
export const POLICY_HINTS = ['destructiveHint', 'openWorldHint'] as const;
export type PolicyHint = (typeof POLICY_HINTS)[number];

/**
 * How text from an untrusted server first entered a conversation's model context (stored in
 * `conversations.tainted`): a tool result, a tool's description or title offered to the model,
 * a server's elicitation message, its progress text, a prompt of the server the person ran, or a
 * resource of it they attached (lib/chat/compose.ts).
 */
export const TAINT_SOURCES = ['result', 'tool_description', 'elicitation', 'progress', 'prompt', 'resource', 'view_context'] as const;
export type TaintSource = (typeof TAINT_SOURCES)[number];

/** How long a grant lasts (`PUT …/grants` `expiresIn`); `session`: until its signed-in session ends. */
export const GRANT_EXPIRIES = ['1h', '12h', 'session'] as const;
export type GrantExpiry = (typeof GRANT_EXPIRIES)[number];

/**
 * Why a grant stopped applying before it expired: the person revoked it, a new grant of the same
 * scope replaced it, or its session signed out.
 */
export const GRANT_REVOKE_REASONS = ['revoked', 'replaced', 'signed_out'] as const;
export type GrantRevokeReason = (typeof GRANT_REVOKE_REASONS)[number];

/**
 * Where a tool stands in one conversation for one signed-in session (the Tools panel):
 * on by default (first-party, trusted read-only), granted, off (never granted, or the grant
 * ended), switched off by the person (lasts across sign-out), suspended (its definition changed
 * since the grant), expired, or left out whatever the person does (unusable schema, over the
 * plan, not reviewed on the servers page).
 */
export const TOOL_STATES = ['default_on', 'granted', 'off', 'switched_off', 'suspended', 'expired', 'left_out'] as const;
export type ToolState = (typeof TOOL_STATES)[number];

export function isOneOf<T extends string>(values: readonly T[], value: string): value is T {
  return (values as readonly string[]).includes(value);
}

/**
 * What an audit entry records (lib/audit): a tool call that reached its end, a change to a grant,
 * or a call an MCP client made through `/mcp` (lib/gateway).
 */
export const AUDIT_KINDS = ['tool_call', 'grant', 'client_call'] as const;
export type AuditKind = (typeof AUDIT_KINDS)[number];

/** How a tool call ended, as the audit log records it: the finished tool-call statuses. */
export const AUDIT_OUTCOMES = FINISHED_CALL_STATUSES;
export type AuditOutcome = (typeof AUDIT_OUTCOMES)[number];

/**
 * Why a call ran or did not, in the audit log: `default` (a first-party read-only tool, on by
 * policy, no stored grant), `auto` (the policy table allowed it, by the rule it names),
 * `allowed` / `denied` (a person decided), `rejected` (not granted, invalid, outside the grant),
 * `undecided` (the run ended while it waited for the person).
 */
export const AUDIT_VERDICTS = ['default', 'auto', 'allowed', 'denied', 'rejected', 'undecided'] as const;
export type AuditVerdict = (typeof AUDIT_VERDICTS)[number];

/** What happened to a grant (or to a default-on tool's switch), as the audit log records it. */
export const AUDIT_GRANT_CHANGES = [
  'created',
  'auto_approve_on',
  'auto_approve_off',
  'constraint',
  'expiry',
  'revoked',
  'switched_off',
  'switched_on',
  'ended_at_sign_out',
] as const;
export type AuditGrantChange = (typeof AUDIT_GRANT_CHANGES)[number];

/** Who may open a share link: anyone holding it, or only a signed-in person holding it. */
export const SHARE_AUDIENCES = ['anyone', 'signed_in'] as const;
export type ShareAudience = (typeof SHARE_AUDIENCES)[number];

/** How long a new share link lives (the owner can revoke it sooner). */
export const SHARE_EXPIRIES = ['never', '1d', '7d', '30d'] as const;
export type ShareExpiry = (typeof SHARE_EXPIRIES)[number];

/**
 * How long a new personal access token lives (`POST /api/account/tokens`, `expiresIn`); null
 * there means a token that never expires. The owner can revoke any token sooner.
 */
export const ACCESS_TOKEN_EXPIRIES = ['7d', '30d', '90d', '1y'] as const;
export type AccessTokenExpiry = (typeof ACCESS_TOKEN_EXPIRIES)[number];

/**
 * How a client of Switchboard's authorization server is known (lib/oauth-server/clients.ts): by a
 * Client ID Metadata Document (its client_id is the document's https URL) or registered
 * dynamically (RFC 7591).
 */
export const OAUTH_CLIENT_KINDS = ['metadata_document', 'registered'] as const;
export type OAuthClientKind = (typeof OAUTH_CLIENT_KINDS)[number];

/** The tokens Switchboard's authorization server issues to connected clients (oauth_tokens.kind). */
export const OAUTH_TOKEN_KINDS = ['access', 'refresh'] as const;
export type OAuthTokenKind = (typeof OAUTH_TOKEN_KINDS)[number];

/**
 * How hard a model that only thinks adaptively (`thinking: { type: 'adaptive' }`) works: the
 * request's `output_config.effort`, a conversation's choice (stored in `conversations.thinking`).
 * The API's own default is `high`.
 */
export const THINKING_EFFORTS = ['low', 'medium', 'high'] as const;
export type ThinkingEffort = (typeof THINKING_EFFORTS)[number];
export const DEFAULT_THINKING_EFFORT: ThinkingEffort = 'high';

/**
 * What an uploaded file is, decided from its bytes (lib/file-bytes.ts), never from its name or
 * the browser's claim: it decides how the model gets it (an image block, a PDF document, a text
 * document) and how it is served back.
 */
export const FILE_KINDS = ['image', 'pdf', 'text'] as const;
export type FileKind = (typeof FILE_KINDS)[number];

/**
 * Where a call of an MCP client that needs the person's approval stands (`client_approvals.status`,
 * lib/gateway/approvals.ts), in the chat's tool-call words: waiting, decided by the person, or ended
 * without a decision — the wait's deadline passed, or the client gave up (closed its request).
 */
export const CLIENT_APPROVAL_STATUSES = [
  'pending_approval',
  'approved',
  'denied',
  'timed_out',
  'cancelled',
] as const satisfies readonly ToolCallStatus[];
export type ClientApprovalStatus = (typeof CLIENT_APPROVAL_STATUSES)[number];

/** What the person may choose for a client's call: once, or not (a client has no session to allow it for). */
export const CLIENT_DECISION_KINDS = ['allow_once', 'deny'] as const satisfies readonly DecisionKind[];
export type ClientDecisionKind = (typeof CLIENT_DECISION_KINDS)[number];

/** Where the person answered a client's call: in Switchboard's inbox, or by the client's MCP elicitation. */
export const CLIENT_DECISION_CHANNELS = ['web', 'elicitation'] as const;
export type ClientDecisionChannel = (typeof CLIENT_DECISION_CHANNELS)[number];

/** What an MCP client on /mcp is: a personal access token, or an OAuth client the person connected (lib/gateway/principal.ts). */
export const GATEWAY_CLIENT_KINDS = ['access_token', 'oauth_client'] as const;
export type GatewayClientKind = (typeof GATEWAY_CLIENT_KINDS)[number];
