import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  customType,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
  type AnyPgColumn,
} from 'drizzle-orm/pg-core';

import type {
  StoredAnnotations,
  StoredAuditContent,
  StoredAuthServer,
  StoredConstraint,
  StoredDecision,
  StoredForkOrigin,
  StoredFoundTools,
  StoredGrantCoverage,
  StoredInputRequests,
  StoredInputResponses,
  StoredMessageContent,
  StoredMessageOrigin,
  StoredNameMap,
  StoredOAuthDiscovery,
  StoredReviewedToolsAnyVersion,
  StoredRunError,
  StoredSignIn,
  StoredTaint,
  StoredThinking,
  StoredToolResult,
  StoredUsage,
  StoredVerdict,
} from './stored-json';
import {
  ACTIVE_RUN_STATUSES,
  AUDIT_KINDS,
  AUDIT_OUTCOMES,
  FILE_KINDS,
  GRANT_EXPIRIES,
  GRANT_REVOKE_REASONS,
  RUN_STATUSES,
  SERVER_STATUSES,
  SERVER_TRANSPORTS,
  SHARE_AUDIENCES,
  TOOL_CALL_STATUSES,
  TRUST_LEVELS,
} from './vocabulary';

const createdAt = () => timestamp('created_at', { withTimezone: true }).notNull().defaultNow();
// Rows belong to a user or a conversation and go with it.
const ownerRef = () =>
  uuid('user_id')
    .notNull()
    .references(() => users.id, { onDelete: 'cascade' });
const conversationRef = () =>
  uuid('conversation_id')
    .notNull()
    .references(() => conversations.id, { onDelete: 'cascade' });

export const users = pgTable('users', {
  id: uuid('id').primaryKey().defaultRandom(),
  // Stored lower-cased and trimmed; the unique index is what makes a duplicate sign-up a 409.
  email: text('email').notNull().unique(),
  name: text('name'),
  // scrypt$N$r$p$salt$hash; null for accounts that only sign in through GitHub / Google.
  passwordHash: text('password_hash'),
  plan: text('plan').notNull().default('pro'),
  // Bumped by triggers (migration 0016) on every change to the user's servers, grants, switches
  // and session endings: the engine reads it each step and reuses what it read at the same value.
  toolsRev: bigint('tools_rev', { mode: 'number' }).notNull().default(0),
  // The person's own instructions for every conversation (how to answer, who they are): system
  // text of each model step, never in a share or a fork. Null: none.
  instructions: text('instructions'),
  createdAt: createdAt(),
});

// Links a GitHub / Google identity to a user.
export const authAccounts = pgTable(
  'auth_accounts',
  {
    provider: text('provider').notNull(),
    providerAccountId: text('provider_account_id').notNull(),
    userId: ownerRef(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.provider, t.providerAccountId] }), index('auth_accounts_user_idx').on(t.userId)],
);

// One row per signed-in session. The JWT only carries this id: ending the row (sign-out)
// makes a copied cookie worthless, and grants hang off it.
export const authSessions = pgTable(
  'auth_sessions',
  {
    id: text('id').primaryKey(),
    userId: ownerRef(),
    createdAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    endedAt: timestamp('ended_at', { withTimezone: true }),
    userAgent: text('user_agent'),
    // Refreshed at most every few minutes while the session is used (the account page lists it).
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true }),
  },
  (t) => [index('auth_sessions_user_idx').on(t.userId)],
);

// Growing delays between password checks (lib/auth/throttle-policy.ts): per email and per known
// device for sign-in, per user for the current-password check of a password change. Each
// allowed check counts as a failure until the password proves right; `next_check_at` is when
// the next check may start.
export const passwordCheckThrottles = pgTable('password_check_throttles', {
  key: text('key').primaryKey(),
  failures: integer('failures').notNull(),
  nextCheckAt: timestamp('next_check_at', { withTimezone: true }).notNull(),
  lastAttemptAt: timestamp('last_attempt_at', { withTimezone: true }).notNull(),
});

// One-time password reset links made by the operator (`npm run reset-password`). Only a hash of
// the token is stored, so a copy of the database cannot be used to reset anyone's password.
export const passwordResetTokens = pgTable(
  'password_reset_tokens',
  {
    tokenHash: text('token_hash').primaryKey(),
    userId: ownerRef(),
    createdAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
  },
  (t) => [index('password_reset_tokens_user_idx').on(t.userId)],
);

// Personal access tokens (issue 25): a script, CI job or MCP client signs in as the person with
// `Authorization: Bearer sbp_…` (lib/auth/access-tokens.ts). Only the token's SHA-256 is stored,
// so a copy of the database signs no one in; `prefix` is its first characters, not secret, for
// telling tokens apart in the list. A revoked token keeps its row (revoked_at) until the user goes.
export const accessTokens = pgTable(
  'access_tokens',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: ownerRef(),
    name: text('name').notNull(),
    tokenHash: text('token_hash').notNull(),
    prefix: text('prefix').notNull(),
    createdAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    // Refreshed at most once a minute while the token is used (ACCESS_TOKEN_LAST_USED_PRECISION_MS).
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
  },
  (t) => [uniqueIndex('access_tokens_hash_idx').on(t.tokenHash), index('access_tokens_user_idx').on(t.userId)],
);

export const conversations = pgTable(
  'conversations',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: ownerRef(),
    title: text('title').notNull().default('New conversation'),
    model: text('model').notNull(),
    // Last allocated event seq; incremented atomically to number the event log.
    eventSeq: bigint('event_seq', { mode: 'number' }).notNull().default(0),
    // Last allocated message seq.
    messageSeq: integer('message_seq').notNull().default(0),
    // Set once, when text from an untrusted server first entered the model's context (what,
    // from which server, when); from then on auto-approval covers only trusted read-only tools.
    tainted: jsonb('tainted').$type<StoredTaint>(),
    // A conversation continued from someone's share link: which snapshot it was copied from.
    forkedFrom: jsonb('forked_from').$type<StoredForkOrigin>(),
    // Extended thinking for this conversation's turns (null: off).
    thinking: jsonb('thinking').$type<StoredThinking>(),
    // The person's instructions for this conversation (system text after their own); not copied
    // into a share or a fork. Null: none.
    instructions: text('instructions'),
    // The last message of the branch on screen (messages form a tree, see `messages.parent_id`):
    // the history sent to the model is the path from the root to it, and the next message
    // follows it. Null: no message yet. Not a foreign key (the two tables would reference each
    // other); it moves only while no turn is active (lib/chat/branches.ts).
    activeLeafId: uuid('active_leaf_id'),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('conversations_user_updated_idx').on(t.userId, t.updatedAt)],
);

// Anthropic-native content blocks, stored verbatim so the next request can be sent as is.
export const messages = pgTable(
  'messages',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    conversationId: conversationRef(),
    seq: integer('seq').notNull(),
    role: text('role', { enum: ['user', 'assistant'] }).notNull(),
    content: jsonb('content').notNull().$type<StoredMessageContent>(),
    runId: uuid('run_id'),
    // Why an assistant message ended (end_turn, max_tokens, cancelled, …); null for user messages.
    stopReason: text('stop_reason'),
    // Where a user message's inserted content came from (an MCP server's prompt or resources); null: typed.
    origin: jsonb('origin').$type<StoredMessageOrigin>(),
    // The message this one follows: messages form a tree (an edit or a regenerated answer starts a
    // sibling branch). Null for a conversation's first message, and for an edit of it. A child's
    // seq is always greater than its parent's, so seq order along a path is the path's order.
    parentId: uuid('parent_id').references((): AnyPgColumn => messages.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('messages_conversation_seq_idx').on(t.conversationId, t.seq),
    // A message's siblings (the branch switcher) and children (the newest leaf beneath one).
    index('messages_conversation_parent_idx').on(t.conversationId, t.parentId),
  ],
);

// A summary of a conversation's oldest messages (seq ≤ through_seq), written when the history
// nears the model's window and sent in their place. The messages themselves stay: the person can
// still read them, and `switchboard__read_result` can still page through their tool results.
export const historySummaries = pgTable(
  'history_summaries',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    conversationId: conversationRef(),
    throughSeq: integer('through_seq').notNull(),
    text: text('text').notNull(),
    // The run whose step needed the room.
    runId: uuid('run_id'),
    createdAt: createdAt(),
  },
  (t) => [index('history_summaries_conversation_idx').on(t.conversationId, t.throughSeq)],
);

// A run is one agent turn: a durable state machine that any instance can advance.
// `version` is bumped by every state change (compare-and-swap); `lease_owner` and
// `lease_expires_at` say which instance may write while it is running.
export const runs = pgTable(
  'runs',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    conversationId: conversationRef(),
    userId: ownerRef(),
    // The signed-in session that started the run: its grants are the ones that apply.
    sessionId: text('session_id'),
    status: text('status', { enum: RUN_STATUSES }).notNull().default('running'),
    stopReason: text('stop_reason'),
    // JSON columns hold the shapes of ./stored-json.ts and are read through them (db/queries).
    error: jsonb('error').$type<StoredRunError>(),
    model: text('model').notNull(),
    step: integer('step').notNull().default(0),
    maxSteps: integer('max_steps').notNull().default(20),
    version: integer('version').notNull().default(0),
    leaseOwner: text('lease_owner'),
    leaseExpiresAt: timestamp('lease_expires_at', { withTimezone: true }),
    cancelRequestedAt: timestamp('cancel_requested_at', { withTimezone: true }),
    usage: jsonb('usage').$type<StoredUsage>(),
    // Model-facing tool name → server id + tool name, as offered in the current step.
    nameMap: jsonb('name_map').$type<StoredNameMap>(),
    // The conversation's thinking setting when the turn started: every step of it, resumed anywhere, asks the same.
    thinking: jsonb('thinking').$type<StoredThinking>(),
    // Seq of this run's run.started event: a client joining mid-run replays from here.
    startSeq: bigint('start_seq', { mode: 'number' }),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    endedAt: timestamp('ended_at', { withTimezone: true }),
  },
  (t) => [
    index('runs_conversation_idx').on(t.conversationId, t.createdAt),
    // At most one active run per conversation: a second start loses the insert and gets 409.
    uniqueIndex('runs_one_active_idx')
      .on(t.conversationId)
      .where(sql.raw(`status in (${ACTIVE_RUN_STATUSES.map((s) => `'${s}'`).join(', ')})`)),
    index('runs_lease_idx').on(t.status, t.leaseExpiresAt),
  ],
);

// The per-conversation event log: what SSE replays by seq.
export const events = pgTable(
  'events',
  {
    conversationId: conversationRef(),
    seq: bigint('seq', { mode: 'number' }).notNull(),
    runId: uuid('run_id'),
    type: text('type').notNull(),
    data: jsonb('data').notNull().$type<Record<string, unknown>>(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.conversationId, t.seq] })],
);

// Fixed-window counters (sign-in, sign-up); in Postgres so every instance shares them.
export const rateLimits = pgTable('rate_limits', {
  key: text('key').primaryKey(),
  windowStart: timestamp('window_start', { withTimezone: true }).notNull(),
  count: integer('count').notNull(),
});

// Model tokens a user's turns used per UTC day (the plan's modelTokensPerDay). Kept apart from
// runs so that deleting a conversation does not give the day's tokens back.
export const modelUsage = pgTable(
  'model_usage',
  {
    userId: ownerRef(),
    day: text('day').notNull(), // YYYY-MM-DD, UTC
    tokens: bigint('tokens', { mode: 'number' }).notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.userId, t.day] })],
);

// Per-user notes behind the built-in `notes` MCP server.
export const notes = pgTable(
  'notes',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: ownerRef(),
    title: text('title').notNull(),
    body: text('body').notNull().default(''),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('notes_user_idx').on(t.userId, t.updatedAt)],
);

// One row per tool_use block the model produced: what was asked, what was decided, what came
// back. It is both the run's working state and the audit log.
export const toolCalls = pgTable(
  'tool_calls',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    runId: uuid('run_id')
      .notNull()
      .references(() => runs.id, { onDelete: 'cascade' }),
    conversationId: conversationRef(),
    userId: ownerRef(),
    step: integer('step').notNull(),
    // Position of the tool_use block in the assistant message: results go back in this order.
    position: integer('position').notNull(),
    toolUseId: text('tool_use_id').notNull(),
    // The name the model used, and what it routed to (null when it named no offered tool).
    modelName: text('model_name').notNull(),
    serverId: text('server_id'),
    serverName: text('server_name'),
    tool: text('tool'),
    input: jsonb('input').notNull(),
    argsHash: text('args_hash').notNull(),
    status: text('status', { enum: TOOL_CALL_STATUSES }).notNull().default('proposed'),
    // What the policy table said (auto, ask, reject) and why.
    verdict: jsonb('verdict').$type<StoredVerdict>(),
    // The tool as it was when called: trust and hints decide retries, schemas validate edits
    // and results, and the audit log shows what the person approved.
    trust: text('trust', { enum: TRUST_LEVELS }),
    // Whether the person trusted its server's content when the outcome was stored: a result whose
    // content was not trusted taints the conversation (db/queries/taint.ts reads it back).
    contentTrusted: boolean('content_trusted').notNull().default(false),
    annotations: jsonb('annotations').$type<StoredAnnotations>(),
    inputSchema: jsonb('input_schema').$type<Record<string, unknown>>(),
    outputSchema: jsonb('output_schema').$type<Record<string, unknown>>(),
    // What the person chose (null while nobody has, and for calls the verdict settled).
    decision: jsonb('decision').$type<StoredDecision>(),
    // The tool_result block sent back to the model.
    result: jsonb('result').$type<StoredToolResult>(),
    isError: boolean('is_error'),
    // The whole result text when it exceeded the per-result budget (paged by a host tool).
    fullText: text('full_text'),
    // Size of the whole result in characters, and whether the model got only part of it.
    resultChars: integer('result_chars'),
    resultTruncated: boolean('result_truncated'),
    attempts: integer('attempts').notNull().default(0),
    // Elicitation (input_required): what the server asked and the state to resume with.
    inputRequests: jsonb('input_requests').$type<StoredInputRequests>(),
    // The person's answers to them, sent back with the exact request state.
    inputResponses: jsonb('input_responses').$type<StoredInputResponses>(),
    // While the call waits in awaiting_sign_in: which server needs the person to sign in, and why.
    signIn: jsonb('sign_in').$type<StoredSignIn>(),
    requestState: text('request_state'),
    // A tool search (host tool) only: the enabled tools it found, offered for the rest of the run.
    foundTools: jsonb('found_tools').$type<StoredFoundTools>(),
    // The `ui://` view (MCP Apps) the tool declared when the model called it: the card shows that
    // view and no other (lib/chat/tool-view.ts), so a view named later cannot be slipped in.
    viewUri: text('view_uri'),
    version: integer('version').notNull().default(0),
    createdAt: createdAt(),
    startedAt: timestamp('started_at', { withTimezone: true }),
    endedAt: timestamp('ended_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('tool_calls_run_use_idx').on(t.runId, t.toolUseId),
    index('tool_calls_run_step_idx').on(t.runId, t.step, t.position),
    index('tool_calls_user_idx').on(t.userId, t.createdAt),
    // The conversation page and every step (taint, stored results) filter on it.
    index('tool_calls_conversation_idx').on(t.conversationId, t.createdAt),
    // A finished sign-in finds the calls that wait for it (lib/agent/sign-in.ts).
    index('tool_calls_awaiting_sign_in_idx')
      .on(t.userId, t.serverId)
      .where(sql`status = 'awaiting_sign_in'`),
  ],
);

// Tool lists as servers last gave them, kept for as long as the server allows (`ttlMs`; a
// default for legacy servers). Per caller unless the server marks the list public.
export const toolCatalogs = pgTable(
  'tool_catalogs',
  {
    serverId: text('server_id').notNull(),
    // A user id for private lists, '*' for public ones.
    scope: text('scope').notNull(),
    serverUrl: text('server_url').notNull(),
    catalog: jsonb('catalog').notNull().$type<Record<string, unknown>>(),
    fetchedAt: timestamp('fetched_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.serverId, t.scope] })],
);

// OAuth credentials for remote MCP servers, one per (user, authorization server, protected
// resource): two servers behind the same resource share one sign-in. Client information and
// tokens are sealed (lib/secrets); `version` serialises refreshes across processes (a refresh is
// claimed by compare-and-swap, `refreshing_until` is the claim's lease) so that a rotated
// refresh token is never sent twice.
export const oauthCredentials = pgTable(
  'oauth_credentials',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: ownerRef(),
    issuer: text('issuer').notNull(),
    resource: text('resource').notNull(),
    clientInfo: text('client_info'),
    tokens: text('tokens'),
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    // What the authorization server granted, and what a server asked for beyond it (step-up).
    scope: text('scope'),
    wantedScope: text('wanted_scope'),
    authServer: jsonb('auth_server').notNull().$type<StoredAuthServer>(),
    version: integer('version').notNull().default(0),
    refreshingUntil: timestamp('refreshing_until', { withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('oauth_credentials_key_idx').on(t.userId, t.issuer, t.resource)],
);

// One authorization request in progress. Only the hash of `state` is stored; the row is
// single-use (`used_at`) and bound to the user, the signed-in session and the server.
export const oauthFlows = pgTable(
  'oauth_flows',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    stateHash: text('state_hash').notNull().unique(),
    userId: ownerRef(),
    authSessionId: text('auth_session_id')
      .notNull()
      .references(() => authSessions.id, { onDelete: 'cascade' }),
    serverId: text('server_id').notNull(),
    codeVerifier: text('code_verifier').notNull(),
    issuer: text('issuer').notNull(),
    resource: text('resource').notNull(),
    redirectUri: text('redirect_uri').notNull(),
    returnTo: text('return_to').notNull(),
    scope: text('scope'),
    discovery: jsonb('discovery').notNull().$type<StoredOAuthDiscovery>(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [index('oauth_flows_server_idx').on(t.userId, t.serverId)],
);

// An MCP session kept open with a 2025-era Streamable HTTP server between calls and turns
// (lib/mcp/legacy-sessions.ts): servers like Playwright MCP keep their state per session, so a
// conversation must come back to the same one. Per (conversation, server, URL, caller); stored
// here so any instance (or one restarted) resumes it. The session id is not a credential, but
// it is the server's handle on the person's state: it never leaves the server side. No
// reference to mcp_servers (built-in ids are not there): removing a server or changing its URL
// forgets its sessions through lib/servers/hooks.ts; deleting the conversation deletes them.
export const mcpSessions = pgTable(
  'mcp_sessions',
  {
    userId: ownerRef(),
    conversationId: conversationRef(),
    serverId: text('server_id').notNull(),
    serverUrl: text('server_url').notNull(),
    sessionId: text('session_id').notNull(),
    // What `initialize` negotiated: a resumed connection skips the handshake and sends it as `MCP-Protocol-Version`.
    protocolVersion: text('protocol_version').notNull(),
    createdAt: createdAt(),
    // Idle past SESSION_IDLE_MS (lib/mcp/legacy-sessions.ts) from here, the session is ended (the sweep, or the next call).
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.conversationId, t.serverId, t.serverUrl, t.userId] }),
    index('mcp_sessions_user_server_idx').on(t.userId, t.serverId),
    index('mcp_sessions_last_used_idx').on(t.lastUsedAt),
  ],
);

// MCP servers a person added. Secrets (header values, the OAuth client secret) are sealed by
// lib/secrets/secret-box.ts and never leave the server; changing the URL drops them. Nothing
// is offered to the model until the person has seen the tools and enabled the server, and a
// tool whose fingerprint changed since is held back until they look again.
export const mcpServers = pgTable(
  'mcp_servers',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: ownerRef(),
    name: text('name').notNull(),
    // Prefix of the model-facing tool names (lib/mcp/naming.ts); unique per user.
    namespace: text('namespace').notNull(),
    url: text('url').notNull(),
    // Whether its annotations (read-only, idempotent…) are believed.
    trust: text('trust', { enum: TRUST_LEVELS }).notNull().default('untrusted'),
    // Whether what it returns is believed: unless it is, its results, errors, questions, progress,
    // prompts and resources taint the conversation (lib/agent/taint.ts).
    trustContent: boolean('trust_content').notNull().default(false),
    // Sealed JSON object of header name → value.
    headersSealed: text('headers_sealed'),
    // A pre-registered OAuth client, when the person has one for this server.
    oauthClientId: text('oauth_client_id'),
    oauthClientSecretSealed: text('oauth_client_secret_sealed'),
    timeoutMs: integer('timeout_ms').notNull().default(60_000),
    enabled: boolean('enabled').notNull().default(false),
    // Tool name → fingerprint the person approved (stored-json: storedReviewedTools).
    reviewedTools: jsonb('reviewed_tools').$type<StoredReviewedToolsAnyVersion>().notNull().default({ v: 1, tools: {} }),
    status: text('status', { enum: SERVER_STATUSES }).notNull().default('unchecked'),
    // In words, for the person; never a secret or a query string (lib/log-safe.ts).
    lastError: text('last_error'),
    protocolVersion: text('protocol_version'),
    transport: text('transport', { enum: SERVER_TRANSPORTS }),
    checkedAt: timestamp('checked_at', { withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('mcp_servers_user_namespace_idx').on(t.userId, t.namespace)],
);

// The audit log (lib/audit): append-only, one hash chain per user. Each entry's HMAC covers the
// previous entry's HMAC and its own content, under a key that is not in the database, so an edit
// or a deletion in the middle breaks the chain where it happened. No reference to conversations
// or tool calls: an entry outlives them and holds its own copies (title, server name, tool).
// The entries go with their user (account deletion). The filter columns repeat what the content
// says; the verifier checks that they still do.
export const auditEntries = pgTable(
  'audit_entries',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: ownerRef(),
    // 1, 2, 3… per user, no gaps: a missing number is a deleted entry.
    seq: bigint('seq', { mode: 'number' }).notNull(),
    at: timestamp('at', { withTimezone: true }).notNull(),
    kind: text('kind', { enum: AUDIT_KINDS }).notNull(),
    conversationId: uuid('conversation_id'),
    toolCallId: uuid('tool_call_id'),
    serverId: text('server_id'),
    tool: text('tool'),
    outcome: text('outcome', { enum: AUDIT_OUTCOMES }),
    content: jsonb('content').notNull().$type<StoredAuditContent>(),
    // Which AUDIT_KEY signed it (a short, non-reversible id), so a rotated key is told apart from an edit.
    keyId: text('key_id').notNull(),
    prevHmac: text('prev_hmac').notNull(),
    hmac: text('hmac').notNull(),
  },
  (t) => [
    uniqueIndex('audit_entries_user_seq_idx').on(t.userId, t.seq),
    // One entry per tool call: writing it twice (a retried transaction) is refused, not repeated.
    uniqueIndex('audit_entries_tool_call_idx')
      .on(t.toolCallId)
      .where(sql`tool_call_id is not null`),
    index('audit_entries_at_idx').on(t.at),
  ],
);

// Where each user's chain ends. Locked FOR UPDATE by every append, so parallel calls and several
// instances append one after another to one chain. After retention pruning, the first kept entry
// chains from `anchor_hmac` (the last pruned entry's HMAC), and `anchor_mac` signs that anchor
// with the audit key, so pruning cannot be faked to hide the oldest entries.
export const auditChainHeads = pgTable('audit_chain_heads', {
  userId: uuid('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  lastSeq: bigint('last_seq', { mode: 'number' }).notNull().default(0),
  lastHmac: text('last_hmac'),
  lastAt: timestamp('last_at', { withTimezone: true }),
  prunedThroughSeq: bigint('pruned_through_seq', { mode: 'number' }).notNull().default(0),
  anchorHmac: text('anchor_hmac'),
  anchorMac: text('anchor_mac'),
});

// What the person switched on for one conversation, in one signed-in session (issue 9). A grant
// makes the tools of its scope (`tool:<serverId>/<tool>` or `server:<serverId>/*`) available to
// the model there; `auto_approve` lets them run without asking where the decision table allows
// it; `constraint` is a JSON Schema fragment the input must also satisfy. `covered` keeps the
// definition of every tool the grant was given for: a tool whose fingerprint changed since is
// suspended, a tool added to the server later is not covered. A grant ends at `expires_at` (null:
// when its session ends), or when revoked — by the person, by a newer grant of the same scope,
// or by its session signing out. Ended rows stay: they say what was allowed when.
export const toolGrants = pgTable(
  'tool_grants',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: ownerRef(),
    conversationId: conversationRef(),
    sessionId: text('session_id')
      .notNull()
      .references(() => authSessions.id, { onDelete: 'cascade' }),
    scope: text('scope').notNull(),
    autoApprove: boolean('auto_approve').notNull().default(false),
    constraint: jsonb('constraint').$type<StoredConstraint>(),
    covered: jsonb('covered').notNull().$type<StoredGrantCoverage>(),
    expiresIn: text('expires_in', { enum: GRANT_EXPIRIES }).notNull(),
    createdAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
    revokedReason: text('revoked_reason', { enum: GRANT_REVOKE_REASONS }),
  },
  (t) => [
    // One live grant per scope: a new one replaces the old in the same transaction.
    uniqueIndex('tool_grants_live_scope_idx')
      .on(t.userId, t.conversationId, t.sessionId, t.scope)
      .where(sql`revoked_at is null`),
    // Signing out revokes every grant of the session.
    index('tool_grants_session_idx')
      .on(t.sessionId)
      .where(sql`revoked_at is null`),
  ],
);

// A tool the person switched off in a conversation. Unlike a grant it is not tied to a session:
// turning something off lasts (across sign-out), turning something on expires. Only the
// first-party tools that are on by default need it; for anything else, off is the absence of a grant.
export const toolSwitches = pgTable(
  'tool_switches',
  {
    userId: ownerRef(),
    conversationId: conversationRef(),
    serverId: text('server_id').notNull(),
    tool: text('tool').notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.conversationId, t.serverId, t.tool] }), index('tool_switches_user_idx').on(t.userId)],
);

// A read-only link to a snapshot of a conversation (lib/share). The token is shown once and kept
// only as its SHA-256; the snapshot is the path from the first message to the one numbered
// `snapshot_seq` — the branch active when it was taken (messages are only ever added, so that path
// never changes) — with the title they had then. Revoking deletes the row;
// deleting the conversation or the account deletes it too.
export const shareLinks = pgTable(
  'share_links',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: ownerRef(),
    conversationId: conversationRef(),
    tokenHash: text('token_hash').notNull().unique(),
    includeToolDetails: boolean('include_tool_details').notNull().default(false),
    // Whether the shared page shows the files attached to messages (served through the token).
    includeFiles: boolean('include_files').notNull().default(false),
    audience: text('audience', { enum: SHARE_AUDIENCES }).notNull().default('anyone'),
    // null: never expires.
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    snapshotSeq: integer('snapshot_seq').notNull(),
    snapshotTitle: text('snapshot_title').notNull(),
    snapshotAt: timestamp('snapshot_at', { withTimezone: true }).notNull(),
    // Set when the owner moved the snapshot to the newest finished turn after creating the link.
    snapshotMovedAt: timestamp('snapshot_moved_at', { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [index('share_links_user_idx').on(t.userId, t.createdAt), index('share_links_conversation_idx').on(t.conversationId)],
);

// Raw bytes. node-postgres answers a Buffer and PGlite a Uint8Array: both are Uint8Array.
const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({
  dataType: () => 'bytea',
  toDriver: (value) => (Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength)),
});

// A file the person uploaded (lib/files). A draft's file until a message refers to it (as a
// reference block in the message's content, resolved to bytes when a request is built); its
// kind, type and dimensions were read from its bytes. The bytes themselves are in the file store
// under `storage_key` — `<user id>/<sha256>`, so the same bytes uploaded twice by one person are
// stored once.
export const files = pgTable(
  'files',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: ownerRef(),
    name: text('name').notNull(),
    kind: text('kind', { enum: FILE_KINDS }).notNull(),
    mediaType: text('media_type').notNull(),
    size: integer('size').notNull(),
    sha256: text('sha256').notNull(),
    storageKey: text('storage_key').notNull(),
    width: integer('width'),
    height: integer('height'),
    pages: integer('pages'),
    createdAt: createdAt(),
  },
  (t) => [index('files_user_idx').on(t.userId, t.createdAt), index('files_storage_key_idx').on(t.storageKey)],
);

// The Postgres file store (lib/files/storage.ts): bytes by key. Another store (object storage)
// would replace this table, not the files rows.
export const fileBlobs = pgTable('file_blobs', {
  key: text('key').primaryKey(),
  bytes: bytea('bytes').notNull(),
  createdAt: createdAt(),
});
