import { randomBytes, randomUUID } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { encode } from '@auth/core/jwt';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { and, eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { createAuthSession } from '@/db/queries/auth-sessions';
import { insertClientApproval } from '@/db/queries/client-approvals';
import { createConversation } from '@/db/queries/conversations';
import { replaceGrant } from '@/db/queries/grants';
import { appendMessage } from '@/db/queries/messages';
import { insertOrgServer } from '@/db/queries/org-servers';
import { addMembership, insertOrg } from '@/db/queries/orgs';
import { insertRun, updateRunIfVersion } from '@/db/queries/runs';
import { enableServer, insertServer } from '@/db/queries/servers';
import { insertShareLink } from '@/db/queries/shares';
import { insertToolCalls } from '@/db/queries/tool-calls';
import { createUser } from '@/db/queries/users';
import { runs } from '@/db/schema';
import { DEFAULT_ORG_POLICY } from '@/db/stored-json';
import type { RunStatus } from '@/db/vocabulary';
import { createAccessToken } from '@/lib/account/access-tokens';
import { argsHash } from '@/lib/agent/args-hash';
import { appendAudit } from '@/lib/audit/append';
import { getAuditKeyring } from '@/lib/audit/key';
import { getAuthSecret } from '@/lib/auth/secret';
import { SESSION_COOKIE } from '@/lib/auth/session';
import { fileDeps, uploadFile } from '@/lib/files/service';
import { buildServerCatalog, type RawTool } from '@/lib/mcp/catalog';
import { readViewHashes } from '@/lib/mcp/view-hashes';
import { processSingleton } from '@/lib/process-singleton';
import { openTestDb } from '@/test/db';
import { APPS_VIEW_URI, startAppsFixtureServer, type AppsFixtureServer } from '@/test/fixtures/apps-fixture';
import { startOAuthFixture, type OAuthFixture } from '@/test/fixtures/oauth-fixture';

/**
 * The authorization matrix (issue 9, "a user can never read or decide another user's tool
 * calls, grants or activity"): every route under app/api is found from the file tree, so a
 * route added later is covered without editing this file. For each route that takes an id and
 * each method it exports, two other users get 404 (as if it did not exist) and the owner gets
 * 2xx, through the real handlers (session cookie, same-origin check, error mapping).
 *
 * A new route fails here until it has what the matrix needs: a factory for each of its params
 * (`FACTORIES`, keyed by the segment before the param, e.g. `conversations/[id]`) and, for a
 * POST / PUT / PATCH, a minimal valid body in `BODIES` (or `NO_BODY`).
 */

const ROOT = path.resolve(import.meta.dirname, '..');
const API = path.join(ROOT, 'app/api');
const ORIGIN = 'http://localhost';
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
type Method = (typeof METHODS)[number];

/** Routes outside the matrix, each with why. Matched on the route path under app/api. */
const EXCEPTIONS: { pattern: RegExp; reason: string }[] = [
  { pattern: /^auth(\/|$)/, reason: 'Auth.js sign-in, sign-out and session endpoints: they own no resource of a user' },
  {
    pattern: /^share\/\[token\](\/|$)/,
    // Their own suites: app/api/share/[token]/routes.test.ts, and files/[fileId]/route.test.ts
    // beside it (a file only through a link that shows it, never another file of the owner).
    reason: 'public share-token routes: the unguessable token is the capability, not a session',
  },
  { pattern: /^internal(\/|$)/, reason: 'the operators’ sweep behind a bearer token (SWEEP_TOKEN), not a user session' },
  { pattern: /^(health|ready)$/, reason: 'liveness and readiness for probes: public by design, they say nothing of any user’s data' },
  { pattern: /^metrics$/, reason: 'the operators’ Prometheus metrics behind a bearer token (METRICS_TOKEN), not a user session' },
  {
    pattern: /^invitations\/\[token\]\/accept$/,
    // Its own suite: lib/orgs/orgs.test.ts (one use, expiry, already a member).
    reason: 'an invitation link: the unguessable one-time token is the capability, any signed-in person may use it once',
  },
  {
    pattern: /^oauth\/callback$/,
    reason: 'the OAuth callback: it completes only a flow whose single-use state this user and session started',
  },
];

/** Public methods (no session by design), for the 401 sweep. */
const PUBLIC: Record<string, string> = {
  'POST account': 'sign-up',
  'POST account/reset-password': 'a password reset with an emailed token',
};

interface Route {
  /** Path under app/api, e.g. `conversations/[id]/cancel`. */
  path: string;
  file: string;
  /** Each dynamic segment with the key of its factory (the segment before it and the param). */
  params: { name: string; factoryKey: string }[];
}

function findRoutes(dir = API): Route[] {
  const out: Route[] = [];
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) out.push(...findRoutes(full));
    else if (name === 'route.ts') {
      const rel = path.relative(API, dir).split(path.sep).join('/');
      const segments = rel.split('/');
      const params = segments.flatMap((s, i) => {
        const m = /^\[(\.\.\.)?([^\]]+)\]$/.exec(s);
        return m ? [{ name: m[2]!, factoryKey: `${segments[i - 1] ?? ''}/${s}` }] : [];
      });
      out.push({ path: rel, file: full, params });
    }
  }
  return out.sort((a, b) => a.path.localeCompare(b.path));
}

const exceptionOf = (route: Route) => EXCEPTIONS.find((e) => e.pattern.test(route.path));

/** What a factory made for the owner: the route's params, plus facts a body may need (e.g. `argsHash`). */
type Made = Record<string, string>;
type Owner = { id: string; sessionId: string };
type Factory = (owner: Owner, made: Made) => Promise<Made>;

let h: DbHandle;
let oauthFixture: OAuthFixture;
let appsFixture: AppsFixtureServer | undefined;

/** A conversation of the owner, with a run in `status` (leased to nobody) when asked. */
async function conversationOf(owner: Owner, run?: RunStatus): Promise<{ conversationId: string; runId?: string }> {
  const conversation = await createConversation(h.db, { userId: owner.id, model: 'demo' });
  if (!run) return { conversationId: conversation.id };
  const inserted = (await insertRun(h.db, {
    conversationId: conversation.id,
    userId: owner.id,
    sessionId: owner.sessionId,
    model: 'demo',
    leaseOwner: 'nobody',
    leaseExpiresAt: new Date(),
  }))!;
  await updateRunIfVersion(h.db, inserted.id, inserted.version, { status: run, leaseOwner: null, leaseExpiresAt: null, step: 1 });
  return { conversationId: conversation.id, runId: inserted.id };
}

/** A conversation of the owner with one finished exchange: something a share link can show. */
async function answeredConversationOf(owner: Owner): Promise<string> {
  const { conversationId } = await conversationOf(owner);
  await appendMessage(h.db, { conversationId, role: 'user', content: [{ type: 'text', text: 'hello' }] });
  await appendMessage(h.db, { conversationId, role: 'assistant', content: [{ type: 'text', text: 'hi' }], stopReason: 'end_turn' });
  return conversationId;
}

/** A conversation of the owner with one finished exchange, with the ids of its question and answer. */
async function exchangeOf(owner: Owner): Promise<Made> {
  const { conversationId } = await conversationOf(owner);
  const question = await appendMessage(h.db, { conversationId, role: 'user', content: [{ type: 'text', text: 'hello' }] });
  const answer = await appendMessage(h.db, {
    conversationId,
    role: 'assistant',
    content: [{ type: 'text', text: 'hi' }],
    stopReason: 'end_turn',
  });
  return { id: conversationId, questionId: question.id, answerId: answer.id };
}

/** A tool call of the owner waiting for them: for a decision, or for their answer to the server's question. */
async function toolCallOf(owner: Owner, waiting: 'pending_approval' | 'awaiting_input'): Promise<Made> {
  const { conversationId, runId } = await conversationOf(owner, waiting === 'pending_approval' ? 'awaiting_approval' : 'awaiting_input');
  const input = { message: 'hi' };
  await appendMessage(h.db, { conversationId, role: 'user', content: [{ type: 'text', text: 'go' }], runId });
  await appendMessage(h.db, {
    conversationId,
    role: 'assistant',
    content: [{ type: 'tool_use', id: 'tu_matrix', name: 'fx__echo', input }],
    runId,
    stopReason: 'tool_use',
  });
  const [call] = await insertToolCalls(h.db, [
    {
      runId: runId!,
      conversationId,
      userId: owner.id,
      step: 1,
      position: 0,
      toolUseId: 'tu_matrix',
      modelName: 'fx__echo',
      input,
      argsHash: argsHash(input),
      serverId: 'gone-server',
      serverName: 'Gone',
      tool: 'echo',
      trust: 'untrusted',
      annotations: {},
      status: waiting,
      verdict: { v: 1, verdict: 'ask', reason: 'Tools of untrusted servers need approval.', warnings: [], grantId: null, constraint: null },
      ...(waiting === 'awaiting_input' && {
        inputRequests: {
          answer: {
            method: 'elicitation/create',
            params: { mode: 'form', message: 'Colour?', requestedSchema: { type: 'object', properties: { c: { type: 'string' } } } },
          },
        },
      }),
    },
  ]);
  return { id: call!.id, argsHash: call!.argsHash };
}

/** A shared server of the organization (lib/servers/org-servers.ts), as an admin's add would store it. */
async function orgServerOf(orgId: string): Promise<string> {
  const row = await insertOrgServer(h.db, {
    id: randomUUID(),
    orgId,
    name: 'Matrix Shared',
    namespace: `shared${randomBytes(3).toString('hex')}`,
    url: oauthFixture.url,
    auth: 'oauth',
    headersSealed: null,
    required: false,
    trust: 'untrusted',
    createdBy: null,
  });
  return row!.id;
}

/** One factory per dynamic segment, keyed by the segment before it: the resource the param names. */
const FACTORIES: Record<string, Factory> = {
  'conversations/[id]': async (owner) => ({ id: (await conversationOf(owner)).conversationId }),
  'servers/[id]': async (owner) => {
    const namespace = `m${randomBytes(4).toString('hex')}`;
    const row = await insertServer(h.db, owner.id, {
      name: 'Matrix',
      namespace,
      // The OAuth fixture, so that Connect (oauth/start) can succeed for the owner.
      url: oauthFixture.url,
      trust: 'untrusted',
      headersSealed: null,
      oauthClientId: null,
      oauthClientSecretSealed: null,
      timeoutMs: 5000,
    });
    return { id: row!.id };
  },
  'tool-calls/[id]': (owner) => toolCallOf(owner, 'pending_approval'),
  // A call of one of the owner's MCP clients waiting for their decision (lib/gateway/approvals.ts).
  'client-approvals/[id]': async (owner) => {
    const input = { title: 'From a client', body: 'matrix' };
    const row = await insertClientApproval(h.db, {
      userId: owner.id,
      client: { kind: 'access_token', id: randomUUID(), name: 'Matrix client' },
      name: 'notes__create',
      serverId: 'builtin-notes',
      serverName: 'Notes',
      tool: 'create',
      trust: 'trusted',
      annotations: {},
      input,
      argsHash: argsHash(input),
      reason: 'This tool may change something.',
      warnings: [],
      expiresAt: new Date(Date.now() + 3_600_000),
    });
    return { id: row.id, argsHash: row.argsHash };
  },
  // An uploaded file of the owner, not yet in a message (a draft's: its owner may delete it).
  'files/[id]': async (owner) => ({
    id: (await uploadFile(fileDeps(h.db), owner.id, { name: 'matrix.txt', bytes: new TextEncoder().encode('matrix') })).id,
  }),
  'shares/[id]': async (owner) => {
    const conversationId = await answeredConversationOf(owner);
    const link = await insertShareLink(h.db, {
      userId: owner.id,
      conversationId,
      tokenHash: randomBytes(32).toString('hex'),
      includeToolDetails: false,
      audience: 'anyone',
      expiresAt: null,
      snapshotSeq: 2,
      snapshotTitle: 'Shared',
      snapshotAt: new Date(),
    });
    return { id: link.id };
  },
  // A personal access token of the owner (DELETE revokes it).
  'tokens/[id]': async (owner) => ({
    id: (await createAccessToken(h.db, { id: owner.id, plan: 'pro' }, { name: 'matrix', expiresIn: '7d' })).id,
  }),
  // An organization the owner owns (its routes answer 404 to anyone who does not belong).
  'orgs/[id]': async (owner) => {
    const org = await insertOrg(h.db, { name: 'Matrix Org' });
    await addMembership(h.db, org.id, owner.id, 'owner');
    return { id: org.id };
  },
  // A shared server of that organization (optional, per-user OAuth at the OAuth fixture: nothing to sign in to here).
  'servers/[serverId]': async (_owner, made) => ({ id: await orgServerOf(made.id!) }),
  // A member of that organization (the owner sets their role).
  'members/[userId]': async (_owner, made) => {
    const member = (await createUser(h.db, { email: `member-${randomBytes(4).toString('hex')}@example.test` }))!;
    await addMembership(h.db, made.id!, member.id, 'member');
    return { id: member.id };
  },
  // A grant of the owner's signed-in session in the conversation made for [id].
  'grants/[grantId]': async (owner, made) => {
    const { grant } = await replaceGrant(h.db, {
      userId: owner.id,
      conversationId: made.id!,
      sessionId: owner.sessionId,
      scope: 'tool:builtin-notes/create',
      autoApprove: false,
      constraint: null,
      covered: { v: 1, tools: {} },
      expiresIn: '12h',
      expiresAt: new Date(Date.now() + 12 * 3_600_000),
    });
    return { id: grant.id };
  },
};

/**
 * A finished call of the owner to the App fixture's `show_greeting`, its server added and enabled
 * with every tool reviewed as listed now: what the view route needs to serve the view.
 */
async function viewedCallOf(owner: Owner): Promise<Made> {
  appsFixture ??= await startAppsFixtureServer();
  const namespace = `a${randomBytes(4).toString('hex')}`;
  const row = (await insertServer(h.db, owner.id, {
    name: 'Apps',
    namespace,
    url: appsFixture.url,
    trust: 'untrusted',
    headersSealed: null,
    oauthClientId: null,
    oauthClientSecretSealed: null,
    timeoutMs: 5000,
  }))!;
  const client = new Client({ name: 'matrix', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(appsFixture.url)));
  const { tools } = await client.listTools();
  const config = { id: row.id, namespace, displayName: 'Apps', url: appsFixture.url, trust: 'untrusted' as const, timeoutMs: 5000 };
  // Reviewed as the app lists them: each view's page pinned (lib/mcp/view-hashes.ts).
  const viewHashes = await readViewHashes(client, config, tools as RawTool[], { timeout: 5000 });
  await client.close();
  const catalog = buildServerCatalog(config, tools as RawTool[], { viewHashes });
  await enableServer(h.db, owner.id, row.id, Object.fromEntries(catalog.tools.map((t) => [t.name, t.fingerprint])));
  const { conversationId, runId } = await conversationOf(owner, 'completed');
  const input = { name: 'Ada' };
  const [call] = await insertToolCalls(h.db, [
    {
      runId: runId!,
      conversationId,
      userId: owner.id,
      step: 1,
      position: 0,
      toolUseId: 'tu_matrix_view',
      modelName: `${namespace}__show_greeting`,
      input,
      argsHash: argsHash(input),
      serverId: row.id,
      serverName: 'Apps',
      tool: 'show_greeting',
      trust: 'untrusted',
      annotations: {},
      status: 'succeeded',
      result: { type: 'tool_result', tool_use_id: 'tu_matrix_view', content: [{ type: 'text', text: 'Hello, Ada!' }] },
      viewUri: APPS_VIEW_URI,
    },
  ]);
  return { id: call!.id };
}

/** Routes whose owner-success needs more than the param's factory gives, each with why. */
const ROUTE_FACTORIES: Record<string, { factory: Factory; why: string }> = {
  'conversations/[id]/cancel': {
    factory: async (owner) => ({ id: (await conversationOf(owner, 'awaiting_approval')).conversationId }),
    why: 'Stop needs a turn in progress (else 409 "nothing to stop")',
  },
  'conversations/[id]/shares': {
    factory: async (owner) => ({ id: await answeredConversationOf(owner) }),
    why: 'a share link shows finished turns only (else 409 "nothing to share yet")',
  },
  'conversations/[id]/messages': {
    factory: (owner) => exchangeOf(owner),
    why: 'reading the page before a message needs a message of the conversation (its id in the query); a new message follows the answer',
  },
  'conversations/[id]/regenerate': {
    factory: (owner) => exchangeOf(owner),
    why: 'regenerating needs an answer of the conversation (its id in the body)',
  },
  'conversations/[id]/active': {
    factory: (owner) => exchangeOf(owner),
    why: 'switching branch needs a message of the conversation (its id in the body)',
  },
  'tool-calls/[id]/view': {
    factory: (owner) => viewedCallOf(owner),
    why: 'a view is served for a finished call whose tool declared one, read from its (reviewed) server',
  },
  'tool-calls/[id]/view/calls': {
    factory: (owner) => viewedCallOf(owner),
    why: "a view's tool call is asked by the view of a finished call whose tool declared one, on that call's server",
  },
  'tool-calls/[id]/view/context': {
    factory: (owner) => viewedCallOf(owner),
    why: "a view's context for the model is kept with a call whose tool declared a view",
  },
  'tool-calls/[id]/input': {
    factory: (owner) => toolCallOf(owner, 'awaiting_input'),
    why: 'an answer needs a call that asked the person something',
  },
};

const NO_BODY = Symbol('no body');
/** A minimal valid body for each write, keyed `METHOD path`; a function gets what the factories made. */
const BODIES: Record<string, unknown | typeof NO_BODY | ((made: Made) => unknown)> = {
  'PATCH conversations/[id]': { title: 'Renamed by the owner', instructions: 'Answer briefly.' },
  'POST conversations/[id]/cancel': NO_BODY,
  'POST conversations/[id]/messages': { text: 'hello' },
  'POST conversations/[id]/regenerate': (made: Made) => ({ messageId: made.answerId }),
  'PUT conversations/[id]/active': (made: Made) => ({ leafId: made.questionId }),
  'PUT conversations/[id]/grants': { scope: 'tool:builtin-notes/create', enabled: true },
  'POST conversations/[id]/shares': { includeToolDetails: false, audience: 'anyone', expiresIn: '7d' },
  'PATCH servers/[id]': { name: 'Renamed' },
  'PATCH orgs/[id]': { joinDomain: null },
  'PATCH orgs/[id]/members/[userId]': { role: 'admin' },
  'PUT orgs/[id]/policy': { ...DEFAULT_ORG_POLICY, v: undefined },
  'POST orgs/[id]/invitations': NO_BODY,
  // Port 9 (discard) on loopback: the add stores the server and finds it unreachable.
  'POST orgs/[id]/servers': { name: 'Matrix Added', url: 'http://127.0.0.1:9/mcp', auth: 'oauth' },
  'PATCH orgs/[id]/servers/[serverId]': { name: 'Renamed by an admin' },
  'POST orgs/[id]/servers/[serverId]/review': { tools: {} },
  'POST orgs/[id]/servers/[serverId]/use': NO_BODY,
  'PATCH shares/[id]': { snapshot: 'latest' },
  'POST servers/[id]/enable': { tools: {} },
  'POST servers/[id]/oauth/start': { returnTo: '/servers' },
  'POST servers/[id]/refresh': NO_BODY,
  'POST servers/[id]/test': NO_BODY,
  'POST tool-calls/[id]/decision': (made: Made) => ({ decision: 'deny', argsHash: made.argsHash, reason: 'matrix' }),
  'POST client-approvals/[id]/decision': (made: Made) => ({ decision: 'deny', argsHash: made.argsHash }),
  // Round 0: the version the factory's row was inserted with.
  'POST tool-calls/[id]/input': { responses: { answer: { action: 'decline' } }, round: 0 },
  // Not switched on in the owner's conversation: decided (rejected, audited) and answered 200, never run.
  'POST tool-calls/[id]/view/calls': { name: 'count_clicks' },
  'PUT tool-calls/[id]/view/context': { content: [{ type: 'text', text: 'matrix' }] },
  'PATCH account/tokens/[id]': { name: 'Renamed by the owner', tools: [] },
};

/**
 * A query string for a route whose owner-success is about one of its answers, keyed `METHOD path`;
 * a function gets what the factories made.
 */
const QUERIES: Record<string, string | ((made: Made) => string)> = {
  // The JSON document (Markdown, the default, is the same conversation read the same way).
  'GET conversations/[id]/export': '?format=json',
  // The page before the owner's answer: their question.
  'GET conversations/[id]/messages': (made: Made) => `?before=${made.answerId}`,
};

type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;

async function handlersOf(route: Route): Promise<[Method, Handler][]> {
  const mod = (await import(/* @vite-ignore */ route.file)) as Partial<Record<Method, Handler>>;
  return METHODS.flatMap((m) => (mod[m] ? [[m, mod[m]] as [Method, Handler]] : []));
}

describe('authorization matrix over app/api', () => {
  const routes = findRoutes();
  const users: (Owner & { cookie: string; name: string })[] = [];
  /** Every id the factories made, by owner: no other user's response may ever carry one. */
  const madeIds = new Map<string, Set<string>>();

  beforeAll(async () => {
    vi.stubEnv('SWITCHBOARD_DATA_DIR', path.join(await mkdtemp(path.join(os.tmpdir(), 'sb-matrix-')), 'data'));
    vi.stubEnv('SECRETS_KEY', randomBytes(32).toString('base64'));
    vi.stubEnv('MCP_ALLOW_LOOPBACK', 'true');
    vi.stubEnv('AUTH_SECRET', randomBytes(32).toString('base64url'));
    vi.stubEnv('APP_URL', '');
    vi.stubEnv('AUTH_URL', '');
    vi.stubEnv('ANTHROPIC_API_KEY', '');
    vi.stubEnv('ANTHROPIC_BASE_URL', '');
    vi.stubEnv('DEMO_MODEL_DELAY_MS', '0');
    h = await openTestDb('pglite');
    // The runtime opens this database instead of one under the data folder.
    processSingleton('db', () => ({ opening: Promise.resolve(h) }));
    // No client metadata document (the app's origin here is not served): dynamic registration.
    oauthFixture = await startOAuthFixture({ cimd: false });
    for (const name of ['ada', 'bob', 'cy']) users.push({ ...(await signedIn(name)), name });
  }, 60_000);
  afterAll(async () => {
    await settled(users.map((u) => u.id));
    vi.unstubAllEnvs();
    await oauthFixture?.close();
    await appsFixture?.close();
    await h?.close();
  }, 60_000);

  async function signedIn(name: string) {
    const user = (await createUser(h.db, { email: `${name}-${randomBytes(4).toString('hex')}@example.test` }))!;
    const sessionId = `sid-${name}-${randomBytes(6).toString('hex')}`;
    await createAuthSession(h.db, { id: sessionId, userId: user.id, expiresAt: new Date(Date.now() + 3_600_000) });
    const token = await encode({
      token: { sid: sessionId, uid: user.id, sub: user.id },
      secret: await getAuthSecret(),
      salt: SESSION_COOKIE,
    });
    return { id: user.id, sessionId, cookie: `${SESSION_COOKIE}=${token}` };
  }

  /** Turns started by an owner's request run after the response: wait for them before the database closes. */
  async function settled(userIds: string[]) {
    for (let i = 0; i < 200; i++) {
      const running = await h.db
        .select({ id: runs.id })
        .from(runs)
        .where(and(inArray(runs.userId, userIds), eq(runs.status, 'running')));
      if (running.length === 0) return;
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  function request(method: Method, route: Route, params: Made, cookie: string | null, body: unknown, made: Made = params): Request {
    const queryOf = QUERIES[`${method} ${route.path}`] ?? '';
    const query = typeof queryOf === 'function' ? queryOf(made) : queryOf;
    const url = `${ORIGIN}/api/${route.path.replace(/\[(?:\.\.\.)?([^\]]+)\]/g, (_, p: string) => params[p] ?? 'x')}${query}`;
    const headers: Record<string, string> = { origin: ORIGIN };
    if (cookie) headers.cookie = cookie;
    if (body !== NO_BODY && body !== undefined) headers['content-type'] = 'application/json';
    return new Request(url, { method, headers, body: body === NO_BODY || body === undefined ? undefined : JSON.stringify(body) });
  }

  it('finds the routes from the file tree, and every exception still names a reason', () => {
    expect(routes.length).toBeGreaterThan(10);
    expect(routes.map((r) => r.path)).toContain('tool-calls/[id]/decision');
    for (const e of EXCEPTIONS) expect(e.reason.length).toBeGreaterThan(20);
  });

  it('has a factory for every param and a body for every write of every route that takes an id', async () => {
    const missing: string[] = [];
    for (const route of routes.filter((r) => r.params.length && !exceptionOf(r))) {
      for (const p of route.params) {
        if (!FACTORIES[p.factoryKey] && !ROUTE_FACTORIES[route.path]) {
          missing.push(`app/api/${route.path}: no factory for the param [${p.name}] — add FACTORIES['${p.factoryKey}'] in this test`);
        }
      }
      for (const [method] of await handlersOf(route)) {
        if (['POST', 'PUT', 'PATCH'].includes(method) && !(`${method} ${route.path}` in BODIES)) {
          missing.push(
            `${method} app/api/${route.path}: no body — add BODIES['${method} ${route.path}'] (a minimal valid body, or NO_BODY)`,
          );
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it('refuses every method of every route without a session (401), except the public ones', async () => {
    const open: string[] = [];
    for (const route of routes.filter((r) => !exceptionOf(r))) {
      for (const [method, handler] of await handlersOf(route)) {
        if (PUBLIC[`${method} ${route.path}`]) continue;
        const params = Object.fromEntries(route.params.map((p) => [p.name, '00000000-0000-4000-8000-000000000000']));
        const body = ['POST', 'PUT', 'PATCH'].includes(method) ? {} : undefined;
        const res = await handler(request(method, route, params, null, body), { params: Promise.resolve(params) });
        if (res.status !== 401) open.push(`${method} /api/${route.path} answered ${res.status}`);
      }
    }
    expect(open).toEqual([]);
  });

  const withIds = findRoutes().filter((r) => r.params.length && !exceptionOf(r));
  describe.each(withIds.map((r) => [r.path, r] as const))('/api/%s', (_path, route) => {
    it.each(['ada', 'bob', 'cy'])("is not found for the others and works for the owner (%s's)", async (ownerName) => {
      const owner = users.find((u) => u.name === ownerName)!;
      const others = users.filter((u) => u !== owner);
      const handlers = await handlersOf(route);
      expect(handlers.length).toBeGreaterThan(0);
      for (const [method, handler] of handlers) {
        const made = await make(route, owner);
        const params = Object.fromEntries(route.params.map((p) => [p.name, made[p.name]!]));
        const entry = BODIES[`${method} ${route.path}`];
        const body = typeof entry === 'function' ? (entry as (m: Made) => unknown)(made) : entry;
        for (const other of others) {
          const res = await handler(request(method, route, params, other.cookie, body, made), { params: Promise.resolve(params) });
          expect(res.status, `${method} /api/${route.path} by ${other.name} on ${owner.name}'s`).toBe(404);
          expect((await res.json()).error.code).toMatch(/^not_found:/);
        }
        const res = await handler(request(method, route, params, owner.cookie, body, made), { params: Promise.resolve(params) });
        const said = res.status >= 300 ? await res.text() : '';
        expect(res.status, `${method} /api/${route.path} by its owner: ${said}`).toBeGreaterThanOrEqual(200);
        expect(res.status, `${method} /api/${route.path} by its owner: ${said}`).toBeLessThan(300);
        await res.body?.cancel().catch(() => {});
        await settled([owner.id]);
      }
    });
  });

  // Roles (issue 26): the organization routes are admin routes. Ada is an admin of organization A
  // and Bob a member of it; Cy owns organization B. Every method of every `orgs/[id]/**` route.
  describe('roles', () => {
    // A member's own use of a shared server (turn an optional one on or off): every member's, not an admin route.
    const MEMBER_ROUTES = new Set(['orgs/[id]/servers/[serverId]/use']);
    const orgRoutes = () => findRoutes().filter((r) => r.path.startsWith('orgs/[id]') && !MEMBER_ROUTES.has(r.path));
    async function orgWith(roles: [Owner, 'owner' | 'admin' | 'member'][]) {
      const org = await insertOrg(h.db, { name: `Org ${randomBytes(3).toString('hex')}` });
      for (const [u, role] of roles) await addMembership(h.db, org.id, u.id, role);
      const target = (await createUser(h.db, { email: `target-${randomBytes(4).toString('hex')}@example.test` }))!;
      await addMembership(h.db, org.id, target.id, 'member');
      return { id: org.id, userId: target.id, serverId: await orgServerOf(org.id) };
    }
    const bodyOf = (method: Method, route: Route) => {
      const entry = BODIES[`${method} ${route.path}`];
      return typeof entry === 'function' ? undefined : entry;
    };

    it("a member reaches no admin route (403); an admin of one organization gets 404 for everything of another's", async () => {
      const [ada, bob, cy] = users as [(typeof users)[0], (typeof users)[0], (typeof users)[0]];
      const owner = (await createUser(h.db, { email: `owner-${randomBytes(4).toString('hex')}@example.test` }))!;
      const routesSeen: string[] = [];
      for (const route of orgRoutes()) {
        for (const [method, handler] of await handlersOf(route)) {
          const a = await orgWith([
            [{ id: owner.id, sessionId: '' }, 'owner'],
            [ada, 'admin'],
            [bob, 'member'],
          ]);
          const b = await orgWith([[cy, 'owner']]);
          const call = (who: typeof ada, params: Record<string, string>) =>
            handler(request(method, route, params, who.cookie, bodyOf(method, route)), { params: Promise.resolve(params) });
          const asMember = await call(bob, a);
          expect(asMember.status, `${method} /api/${route.path} by a member`).toBe(403);
          expect((await asMember.json()).error.code).toMatch(/^forbidden:/);
          const elsewhere = await call(ada, b);
          expect(elsewhere.status, `${method} /api/${route.path} by an admin of another organization`).toBe(404);
          routesSeen.push(`${method} ${route.path}`);
        }
      }
      expect(routesSeen).toEqual(
        expect.arrayContaining([
          'GET orgs/[id]/members',
          'PUT orgs/[id]/policy',
          'GET orgs/[id]/usage',
          'GET orgs/[id]/audit',
          'GET orgs/[id]/servers',
          'POST orgs/[id]/servers',
          'PATCH orgs/[id]/servers/[serverId]',
          'DELETE orgs/[id]/servers/[serverId]',
          'POST orgs/[id]/servers/[serverId]/review',
        ]),
      );
    });

    it('a member turns an optional shared server on and off; someone of another organization finds nothing', async () => {
      const [ada, bob, cy] = users as [(typeof users)[0], (typeof users)[0], (typeof users)[0]];
      const a = await orgWith([
        [ada, 'owner'],
        [bob, 'member'],
      ]);
      const route = findRoutes().find((r) => r.path === 'orgs/[id]/servers/[serverId]/use')!;
      const handlers = new Map(await handlersOf(route));
      const call = (method: Method, who: typeof ada) =>
        handlers.get(method)!(request(method, route, a, who.cookie, undefined), { params: Promise.resolve(a) });
      expect((await call('POST', cy)).status).toBe(404);
      const on = await call('POST', bob);
      expect(on.status, await on.clone().text()).toBe(201);
      const view = (await on.json()) as { server: { org: { orgName: string; required: boolean } } };
      expect(view.server.org).toMatchObject({ required: false });
      expect((await call('DELETE', cy)).status).toBe(404);
      expect((await call('DELETE', bob)).status).toBe(204);
    });

    it("an admin sees members' tool calls as metadata only: never their arguments or results", async () => {
      const [ada, bob] = users as [(typeof users)[0], (typeof users)[0]];
      const a = await orgWith([
        [ada, 'admin'],
        [bob, 'member'],
      ]);
      const at = new Date().toISOString();
      await appendAudit(h.db, await getAuditKeyring(), [
        {
          userId: bob.id,
          content: {
            v: 1,
            kind: 'tool_call',
            toolCallId: crypto.randomUUID(),
            runId: crypto.randomUUID(),
            conversation: { id: crypto.randomUUID(), title: 'ARG-TITLE-SECRET' },
            server: { id: 'srv-matrix', name: 'Matrix Server' },
            tool: 'lookup_customer',
            modelName: 'matrix__lookup_customer',
            trust: 'trusted',
            arguments: {
              proposed: { q: 'ARG-SECRET' },
              proposedHash: 'h',
              executed: { q: 'ARG-SECRET' },
              executedHash: 'h',
              edited: false,
            },
            verdict: { kind: 'allowed', rule: null, by: bob.id, decision: 'allow_once', reason: null, warnings: [] },
            grant: { id: null, constraint: null },
            outcome: 'succeeded',
            timing: { proposedAt: at, startedAt: at, endedAt: at, durationMs: 0 },
            attempts: 1,
            result: { isError: false, bytes: 12, sha256: 'RESULT-HASH-SECRET', totalChars: null, truncated: false },
          },
        },
      ]);
      const audit = (await import('@/app/api/orgs/[id]/audit/route')).GET;
      const res = await audit(request('GET', { path: 'orgs/[id]/audit', file: '', params: [] }, a, ada.cookie, undefined), {
        params: Promise.resolve({ id: a.id }),
      });
      expect(res.status).toBe(200);
      const text = await res.text();
      const body = JSON.parse(text) as { entries: { tool: string; serverName: string; outcome: string; email: string }[] };
      expect(body.entries.find((e) => e.tool === 'lookup_customer')).toMatchObject({ serverName: 'Matrix Server', outcome: 'succeeded' });
      for (const secret of ['ARG-SECRET', 'RESULT-HASH-SECRET', 'ARG-TITLE-SECRET', 'arguments', 'result'])
        expect(text).not.toContain(secret);
    });
  });

  // Outside app/api: Switchboard's MCP endpoint takes a personal access token, never a session
  // (lib/gateway/endpoint.ts), so a signed-in browser cannot be made to use it by another site.
  it('/mcp refuses a session cookie on every method (401 naming its metadata); its own suites test tokens', async () => {
    const mcp = (await import('@/app/mcp/route')) as Record<'GET' | 'POST' | 'DELETE', (req: Request) => Promise<Response>>;
    const owner = users[0]!;
    for (const method of ['GET', 'POST', 'DELETE'] as const) {
      const body = method === 'POST' ? JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }) : undefined;
      const res = await mcp[method](
        new Request(`${ORIGIN}/mcp`, {
          method,
          headers: {
            cookie: owner.cookie,
            origin: ORIGIN,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
          body,
        }),
      );
      expect(res.status, `${method} /mcp with a session`).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${ORIGIN}/.well-known/oauth-protected-resource/mcp"`);
    }
  });

  it("lists (every GET without an id) never show another user's things", async () => {
    const lists = routes.filter((r) => !r.params.length && !exceptionOf(r));
    expect(lists.map((r) => r.path)).toContain('conversations');
    const leaks: string[] = [];
    for (const route of lists) {
      const get = (await handlersOf(route)).find(([m]) => m === 'GET')?.[1];
      if (!get) continue;
      for (const viewer of users) {
        const res = await get(request('GET', route, {}, viewer.cookie, undefined), { params: Promise.resolve({}) });
        expect(res.status, `GET /api/${route.path} for ${viewer.name}`).toBeLessThan(300);
        const body = await textOrFirstChunk(res);
        for (const other of users.filter((u) => u !== viewer)) {
          for (const id of madeIds.get(other.id) ?? [])
            if (body.includes(id)) leaks.push(`GET /api/${route.path} for ${viewer.name} shows ${other.name}'s ${id}`);
        }
        // The viewer's own things are there (the check can see them), at least in their conversation list.
        if (route.path === 'conversations') expect([...(madeIds.get(viewer.id) ?? [])].some((id) => body.includes(id))).toBe(true);
      }
    }
    expect(leaks).toEqual([]);
  });

  /** The body; of an event stream, which never ends by itself, what it sends first (then it is closed). */
  async function textOrFirstChunk(res: Response): Promise<string> {
    if (!res.headers.get('content-type')?.startsWith('text/event-stream')) return res.text();
    const reader = res.body!.getReader();
    const first = await reader.read();
    await reader.cancel();
    return new TextDecoder().decode(first.value);
  }

  async function make(route: Route, owner: Owner): Promise<Made> {
    const special = ROUTE_FACTORIES[route.path];
    let made: Made = {};
    if (special) made = await special.factory(owner, {});
    else {
      for (const p of route.params) {
        const factory = FACTORIES[p.factoryKey];
        if (!factory) throw new Error(`app/api/${route.path}: no factory for [${p.name}] — add FACTORIES['${p.factoryKey}'] in this test`);
        const { id, ...facts } = await factory(owner, made);
        made = { ...made, ...facts, [p.name]: id! };
      }
    }
    const ids = madeIds.get(owner.id) ?? new Set<string>();
    for (const p of route.params) ids.add(made[p.name]!);
    madeIds.set(owner.id, ids);
    return made;
  }
});
