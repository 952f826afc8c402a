import { isOneOf, PLANS, type Plan } from '@/db/vocabulary';
import { readConfig, type Env } from '@/lib/config';

/**
 * Every per-user quota of the app, declared once with its default and the words a person reads
 * when they hit it. The value that applies is: the default, then the plan's own value
 * (`PLAN_LIMITS`), then `SWITCHBOARD_LIMITS` — a JSON object such as
 * `{"messagesPerMinute": 1000}` — so operators, tests and benchmarks can raise or lower any of them.
 */
export const LIMIT_TABLE = {
  messagesPerMinute: { default: 20, unit: 'messages per minute', one: 'message per minute' },
  activeRunsPerUser: { default: 3, unit: 'turns in progress at once', one: 'turn in progress at once' },
  storedResultBytesPerUser: { default: 200 * 1024 * 1024, unit: 'bytes of stored tool results', one: 'byte of stored tool results' },
  sandboxRunsPerUser: { default: 2, unit: 'sandbox runs at once', one: 'sandbox run at once' },
  sandboxQueuePerUser: { default: 4, unit: 'sandbox runs waiting', one: 'sandbox run waiting' },
  eventStreamsPerUser: { default: 24, unit: 'open event streams', one: 'open event stream' },
  eventStreamsPerConversation: { default: 6, unit: 'open event streams per conversation', one: 'open event stream per conversation' },
  // Each turn may make up to maxSteps model calls on the operator's key: turns, and the tokens
  // the model reports for them, are what a plan buys.
  runsPerHour: { default: 60, unit: 'turns started per hour', one: 'turn started per hour' },
  modelTokensPerDay: { default: 2_000_000, unit: 'model tokens per day (UTC)', one: 'model token per day (UTC)' },
  // Servers the person adds themselves (the built-in ones are not counted).
  serversPerUser: { default: 50, unit: 'servers of your own', one: 'server of your own' },
  // Tools the person switched on in one conversation (tools on by default are not counted).
  enabledToolsPerConversation: { default: 50, unit: 'enabled tools per conversation', one: 'enabled tool per conversation' },
  // Personal access tokens that work (not revoked, not expired): each is a standing way into the
  // account, so a person keeps a handful and revokes what they no longer use.
  accessTokensPerUser: { default: 20, unit: 'personal access tokens', one: 'personal access token' },
  // Tool calls one MCP client (one personal access token) makes through /mcp in a minute: a
  // runaway agent loop stops there, and the person's other clients and their chat keep working.
  mcpCallsPerMinute: { default: 60, unit: 'tool calls per minute per MCP client', one: 'tool call per minute per MCP client' },
  // Tool calls of one MCP client in progress at once on one instance, waits for approval included:
  // each holds an HTTP request (and, waiting, a row in the person's inbox) for up to MCP_APPROVAL_WAIT_MS.
  mcpConcurrentCalls: {
    default: 10,
    unit: 'tool calls in progress at once per MCP client',
    one: 'tool call in progress at once per MCP client',
  },
  // `subscriptions/listen` streams one MCP client holds open at once on one instance: one stream carries
  // every change notification, and each held one is an open HTTP request (lib/gateway/listen-streams.ts).
  mcpListenStreams: { default: 3, unit: 'open listen streams per MCP client', one: 'open listen stream per MCP client' },
  // Uploaded files (lib/files): the size of one file by kind (what the model API accepts in one
  // request sets the PDF's), files per message, and all the bytes a person keeps.
  imageBytes: { default: 5 * 1024 * 1024, unit: 'bytes per image', one: 'byte per image' },
  pdfBytes: { default: 32 * 1024 * 1024, unit: 'bytes per PDF', one: 'byte per PDF' },
  pdfPages: { default: 100, unit: 'pages per PDF', one: 'page per PDF' },
  textFileBytes: { default: 1024 * 1024, unit: 'bytes per text file', one: 'byte per text file' },
  filesPerMessage: { default: 10, unit: 'files per message', one: 'file per message' },
  storedFileBytesPerUser: { default: 1024 * 1024 * 1024, unit: 'bytes of stored files', one: 'byte of stored files' },
} as const satisfies Record<string, { default: number; unit: string; one: string }>;

export type LimitName = keyof typeof LIMIT_TABLE;
export type Limits = Record<LimitName, number>;
export const LIMIT_NAMES = Object.keys(LIMIT_TABLE) as LimitName[];

export type { Plan };

/**
 * "No limit". Infinity would be simpler to compare but is not JSON (`JSON.stringify` turns it
 * into null, and `SWITCHBOARD_LIMITS` could not say it); the largest safe integer is a plain
 * number everywhere — in the env override, in logs, in comparisons, which need no special case —
 * and no count ever reaches it. Views show it as null ("unlimited").
 */
export const UNLIMITED = Number.MAX_SAFE_INTEGER;

/**
 * Per-plan values that differ from the defaults (the defaults are the `pro` plan's). `free` adds
 * no servers of its own: only the built-in ones.
 */
export const PLAN_LIMITS: Record<Plan, Partial<Limits>> = {
  free: {
    enabledToolsPerConversation: 5,
    runsPerHour: 20,
    modelTokensPerDay: 200_000,
    serversPerUser: 0,
    storedFileBytesPerUser: 100 * 1024 * 1024,
  },
  pro: {},
  enterprise: {
    enabledToolsPerConversation: UNLIMITED,
    runsPerHour: 600,
    modelTokensPerDay: 20_000_000,
    serversPerUser: 500,
    storedFileBytesPerUser: 20 * 1024 * 1024 * 1024,
  },
};

/** A quota was reached. The HTTP layer answers 429 with this message, the limit's name and the plan. */
export class LimitExceeded extends Error {
  constructor(
    readonly limit: LimitName,
    readonly value: number,
    message: string,
    readonly plan: Plan | null = null,
  ) {
    super(message);
  }
}

/**
 * `SWITCHBOARD_LIMITS`: lib/config checks that it is a JSON object of non-negative numbers; which
 * names are limits is known here.
 */
function overridesFrom(env: Env | undefined): Partial<Limits> {
  const out: Partial<Limits> = {};
  for (const [name, value] of Object.entries(readConfig(env).SWITCHBOARD_LIMITS)) {
    if (!(name in LIMIT_TABLE)) throw new Error(`SWITCHBOARD_LIMITS: unknown limit "${name}" (known: ${LIMIT_NAMES.join(', ')}).`);
    out[name as LimitName] = value;
  }
  return out;
}

export function isPlan(plan: string | null | undefined): plan is Plan {
  return typeof plan === 'string' && isOneOf(PLANS, plan);
}

/** The limits that apply to a user on `plan`. */
export function limitsFor(plan: string | null | undefined, env?: Env): Limits {
  const defaults = Object.fromEntries(LIMIT_NAMES.map((n) => [n, LIMIT_TABLE[n].default])) as Limits;
  return { ...defaults, ...(isPlan(plan) ? PLAN_LIMITS[plan] : {}), ...overridesFrom(env) };
}

/**
 * The error for a reached limit, in words: which limit, the user's plan, its value, and what to
 * do. `plan` is the user's `users.plan` (the limits came from it); a limit of 0 is something the
 * plan does not include at all.
 */
export function limitExceeded(name: LimitName, value: number, advice: string, plan: string | null | undefined): LimitExceeded {
  const known = isPlan(plan) ? plan : null;
  // "at most 1 server of your own", not "1 servers".
  const unit = value === 1 ? LIMIT_TABLE[name].one : LIMIT_TABLE[name].unit;
  const onPlan = known ? ` on the ${known} plan` : '';
  const head =
    value === 0 && known
      ? `Not included in the ${known} plan: ${unit}.`
      : `Limit reached${onPlan}: at most ${value.toLocaleString('en')} ${unit}.`;
  return new LimitExceeded(name, value, `${head} ${advice}`, known);
}
