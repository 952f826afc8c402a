/**
 * Every per-user quota of the app, declared once with its default and the words a person reads
 * when they hit it. The value that applies is: the default, then the plan's own value (the
 * consent work fills `PLAN_LIMITS`), then `SWITCHBOARD_LIMITS` — a JSON object such as
 * `{"messagesPerMinute": 1000}` — so operators, tests and benchmarks can raise or lower any of them.
 */
export const LIMIT_TABLE = {
  messagesPerMinute: { default: 20, unit: 'messages per minute' },
  activeRunsPerUser: { default: 3, unit: 'turns in progress at once' },
  storedResultBytesPerUser: { default: 200 * 1024 * 1024, unit: 'bytes of stored tool results' },
  sandboxRunsPerUser: { default: 2, unit: 'sandbox runs at once' },
  sandboxQueuePerUser: { default: 4, unit: 'sandbox runs waiting' },
  eventStreamsPerUser: { default: 24, unit: 'open event streams' },
  eventStreamsPerConversation: { default: 6, unit: 'open event streams per conversation' },
  // Tools the person switched on in one conversation (tools on by default are not counted).
  enabledToolsPerConversation: { default: 50, unit: 'enabled tools per conversation' },
} as const satisfies Record<string, { default: number; unit: string }>;

export type LimitName = keyof typeof LIMIT_TABLE;
export type Limits = Record<LimitName, number>;
export const LIMIT_NAMES = Object.keys(LIMIT_TABLE) as LimitName[];

export type Plan = 'free' | 'pro' | 'enterprise';

/**
 * "No limit". Infinity would be simpler to compare but is not JSON (`JSON.stringify` turns it
 * into null, and `SWITCHBOARD_LIMITS` could not say it); the largest safe integer is a plain
 * number everywhere — in the env override, in logs, in comparisons, which need no special case —
 * and no count ever reaches it. Views show it as null ("unlimited").
 */
export const UNLIMITED = Number.MAX_SAFE_INTEGER;

/** Per-plan values that differ from the defaults. */
export const PLAN_LIMITS: Record<Plan, Partial<Limits>> = {
  free: { enabledToolsPerConversation: 5 },
  pro: {},
  enterprise: { enabledToolsPerConversation: UNLIMITED },
};

/** A quota was reached. The HTTP layer answers 429 with this message and the limit's name. */
export class LimitExceeded extends Error {
  constructor(
    readonly limit: LimitName,
    readonly value: number,
    message: string,
  ) {
    super(message);
  }
}

type Env = Record<string, string | undefined>;

function overridesFrom(env: Env): Partial<Limits> {
  const raw = env.SWITCHBOARD_LIMITS;
  if (!raw) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (err) {
    throw new Error(`SWITCHBOARD_LIMITS is not valid JSON: ${(err as Error).message}`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new Error('SWITCHBOARD_LIMITS must be a JSON object such as {"messagesPerMinute": 100}.');
  }
  const out: Partial<Limits> = {};
  for (const [name, value] of Object.entries(parsed)) {
    if (!(name in LIMIT_TABLE)) throw new Error(`SWITCHBOARD_LIMITS: unknown limit "${name}" (known: ${LIMIT_NAMES.join(', ')}).`);
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw new Error(`SWITCHBOARD_LIMITS: ${name} must be a non-negative number (got ${JSON.stringify(value)}).`);
    }
    out[name as LimitName] = value;
  }
  return out;
}

function isPlan(plan: string | null | undefined): plan is Plan {
  return plan === 'free' || plan === 'pro' || plan === 'enterprise';
}

/** The limits that apply to a user on `plan`. */
export function limitsFor(plan: string | null | undefined, env: Env = process.env): Limits {
  const defaults = Object.fromEntries(LIMIT_NAMES.map((n) => [n, LIMIT_TABLE[n].default])) as Limits;
  return { ...defaults, ...(isPlan(plan) ? PLAN_LIMITS[plan] : {}), ...overridesFrom(env) };
}

/** The error for a reached limit, in words: which limit, its value, and what to do. */
export function limitExceeded(name: LimitName, value: number, advice: string): LimitExceeded {
  return new LimitExceeded(name, value, `Limit reached: at most ${value.toLocaleString('en')} ${LIMIT_TABLE[name].unit}. ${advice}`);
}
