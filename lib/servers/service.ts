import { randomUUID } from 'node:crypto';

import type { Db } from '@/db/connection';
import { findCredentialsForResources } from '@/db/queries/oauth';
import { countOrgServersAddedBy } from '@/db/queries/org-servers';
import { listPoliciesOfUser } from '@/db/queries/orgs';
import {
  deleteServer,
  enableServer,
  getServer,
  insertServer,
  listServers,
  recordServerCheck,
  setServerEnabled,
  updateServer,
  type ServerPatch,
  type ServerRow,
} from '@/db/queries/servers';
import { dropCatalogs } from '@/db/queries/tool-catalogs';
import { getUserPlan } from '@/db/queries/users';
import { ownServerRefusal } from '@/lib/consent/org-policy';
import { AppError } from '@/lib/http/errors';
import { LimitExceeded, limitExceeded, limitsFor } from '@/lib/limits';
import { errorSummary, redactSecrets } from '@/lib/log-safe';
import { BUILTIN_SERVERS } from '@/lib/mcp/builtin';
import type { CachedGateway } from '@/lib/mcp/catalog-cache';
import type { FetchLike } from '@/lib/mcp/connection';
import type { ListedCatalog } from '@/lib/mcp/gateway';
import { resourceCandidates } from '@/lib/mcp/oauth/credentials';
import type { McpServerConfig } from '@/lib/mcp/types';
import type { SecretBox } from '@/lib/secrets/secret-box';

import { openClientSecret, openHeaders, sealClientSecret, sealHeaders, serverConfig, withoutSealedHeaders } from './config';
import {
  checkBody,
  checkHeaders,
  checkName,
  checkNamespace,
  checkOAuthClient,
  checkShowViews,
  checkTimeout,
  checkTrust,
  checkTrustContent,
  checkUrl,
  DEFAULT_TIMEOUT_MS,
  FieldProblem,
  namespaceFromName,
} from './fields';
import { runUrlChangeHooks } from './hooks';
import { ImportShapeError, planImport } from './import';
import { builtinServerView, CREDENTIALS_UNREADABLE, userServerView, type ServerView } from './view';

/**
 * The use-cases of the servers page: add, edit, remove, test, refresh, enable after review,
 * import. Every read and write is scoped to the user; another user's server is "not found".
 */

export interface ServersContext {
  db: Db;
  box: SecretBox;
  /** Remote servers, all tools, catalogs cached in Postgres. */
  remote: CachedGateway;
  builtinListing(server: McpServerConfig, refresh?: boolean): Promise<ListedCatalog>;
  allowLoopback: boolean;
  /** The guarded fetch for OAuth requests: revoking the credentials a URL change or removal forgets (none without it). */
  oauthFetch?: FetchLike;
}

/** A test connection (on add, import, test) waits at most this long, whatever the server's call timeout. */
export const TEST_TIMEOUT_MS = 20_000;

const notFound = (id: string) => new AppError('not_found', 'server', `No server with id "${id}".`);

async function own(ctx: ServersContext, userId: string, id: string): Promise<ServerRow> {
  const row = await getServer(ctx.db, userId, id);
  if (!row) throw notFound(id);
  return row;
}

/** A server the person may change: their own, not their use of an organization's shared server. */
async function ownEditable(ctx: ServersContext, userId: string, id: string, doing: string): Promise<ServerRow> {
  const row = await own(ctx, userId, id);
  if (row.org) {
    throw new AppError(
      'forbidden',
      'org_server',
      `"${row.name}" is a shared server of your organization "${row.org.orgName}": only its owners and admins can ${doing} it.`,
    );
  }
  return row;
}

/** Whether this person holds OAuth tokens for the server's URL (its credential, found as the calls find it). */
async function isSignedIn(ctx: ServersContext, userId: string, url: string): Promise<boolean> {
  const rows = await findCredentialsForResources(ctx.db, userId, resourceCandidates(url));
  return rows.some((r) => r.tokens !== null);
}

/** The page's view of one server, from its last listing (no request to the server). */
export async function serverView(ctx: ServersContext, userId: string, row: ServerRow): Promise<ServerView> {
  let headerNames: string[] = [];
  let credentialsUnreadable = false;
  let config: McpServerConfig;
  try {
    // A shared credential is the organization's: a member sees not even its header names.
    headerNames = row.org ? [] : Object.keys(openHeaders(row, ctx.box));
    config = serverConfig(row, ctx.box);
  } catch (err) {
    console.error(`[servers] credentials of ${row.id} cannot be opened:`, errorSummary(err));
    credentialsUnreadable = true;
    config = serverConfig(withoutSealedHeaders(row), ctx.box);
  }
  const [listing, signedIn] = await Promise.all([ctx.remote.lastListing(config, { userId }), isSignedIn(ctx, userId, row.url)]);
  return userServerView(row, listing, { headerNames, credentialsUnreadable, signedIn });
}

export async function listServerViews(ctx: ServersContext, userId: string): Promise<{ servers: ServerView[]; builtin: ServerView[] }> {
  const rows = await listServers(ctx.db, userId);
  const [servers, builtin] = await Promise.all([
    Promise.all(rows.map((r) => serverView(ctx, userId, r))),
    Promise.all(BUILTIN_SERVERS.map(async (s) => builtinServerView(await ctx.builtinListing(s)))),
  ]);
  return { servers, builtin };
}

interface AddInput {
  name: string;
  namespace?: string;
  url: string;
  trust?: string;
  trustContent?: boolean;
  showViews?: boolean;
  headers?: Record<string, string>;
  oauthClient?: unknown;
  timeoutMs?: number;
}

/** Checks every field and inserts the server (disabled until the person reviews its tools). */
async function insertChecked(ctx: ServersContext, userId: string, body: Record<string, unknown>, taken: Taken): Promise<ServerRow> {
  const name = checkName(body.name);
  const url = checkUrl(body.url, { allowLoopback: ctx.allowLoopback });
  await checkOrgPolicy(ctx, userId, url);
  const trust = body.trust === undefined ? 'untrusted' : checkTrust(body.trust);
  const trustContent = body.trustContent === undefined ? false : checkTrustContent(body.trustContent);
  const showViews = body.showViews === undefined ? true : checkShowViews(body.showViews);
  const timeoutMs = body.timeoutMs === undefined ? DEFAULT_TIMEOUT_MS : checkTimeout(body.timeoutMs);
  const headers = body.headers === undefined ? {} : (checkHeaders(body.headers) as Record<string, string>);
  const oauth = body.oauthClient === undefined ? null : checkOAuthClient(body.oauthClient);
  const namespace =
    body.namespace === undefined ? namespaceFromName(name, (ns) => taken.namespaces.has(ns)) : checkNamespace(body.namespace);
  if (taken.namespaces.has(namespace)) {
    throw new AppError('conflict', 'server', `You already have a server with the namespace "${namespace}": choose another.`, 'namespace');
  }
  await checkServerAllowance(ctx, userId, taken.own);
  // The id is chosen here, not by the database: the secrets are sealed for this row before it exists.
  const key = { id: randomUUID(), userId };
  const row = await insertServer(ctx.db, userId, {
    id: key.id,
    name,
    namespace,
    url,
    trust,
    trustContent,
    showViews,
    timeoutMs,
    headersSealed: sealHeaders(ctx.box, key, headers),
    oauthClientId: oauth?.clientId ?? null,
    oauthClientSecretSealed: oauth?.clientSecret ? sealClientSecret(ctx.box, key, oauth.clientSecret) : null,
  });
  if (!row)
    throw new AppError('conflict', 'server', `You already have a server with the namespace "${namespace}": choose another.`, 'namespace');
  taken.namespaces.add(namespace);
  taken.own++;
  return row;
}

/**
 * The plan decides which servers may be added: `free` none of its own (only the built-in ones), the
 * others up to `serversPerUser` — counting the person's own servers and the shared servers they
 * added to any organization (so an organization of one's own is no way around the plan).
 */
export async function checkServerAllowance(ctx: Pick<ServersContext, 'db'>, userId: string, count: number): Promise<void> {
  const plan = await getUserPlan(ctx.db, userId);
  const max = limitsFor(plan).serversPerUser;
  if (count < max) return;
  const advice =
    max === 0
      ? 'Only the built-in servers are available on this plan; the pro and enterprise plans can add any MCP server.'
      : `You have ${count} (servers of your own and shared servers you added to organizations): remove one before adding another.`;
  throw limitExceeded('serversPerUser', max, advice, plan);
}

/** The person's organizations may forbid servers of one's own, or allow only some hosts (lib/consent/org-policy.ts). */
async function checkOrgPolicy(ctx: ServersContext, userId: string, url: string): Promise<void> {
  const refused = ownServerRefusal(await listPoliciesOfUser(ctx.db, userId), url);
  if (refused) throw new AppError('forbidden', 'org_policy', `url: ${refused.why}`, 'url');
}

/**
 * The namespaces the person's rows hold (a new server takes another), and how many servers count
 * towards their plan: their own rows and the shared servers they added to organizations. Their
 * rows of an organization's shared servers do not count towards `serversPerUser`: the organization
 * added them, a required one is made whatever the person's plan, and a member at their limit must
 * still be able to use what their organization requires.
 */
export interface Taken {
  namespaces: Set<string>;
  own: number;
}

export async function takenNamespaces(ctx: Pick<ServersContext, 'db'>, userId: string): Promise<Taken> {
  const [rows, added] = await Promise.all([listServers(ctx.db, userId), countOrgServersAddedBy(ctx.db, userId)]);
  const own = rows.filter((r) => r.org === null && r.orgServerId === null).length;
  return { namespaces: new Set(rows.map((r) => r.namespace)), own: own + added };
}

/** Adds a server and tries it at once, so its tools show before anything is enabled. */
export async function addServer(ctx: ServersContext, userId: string, raw: unknown): Promise<ServerView> {
  const body = checkBody(raw, 'add') as Partial<AddInput> & Record<string, unknown>;
  const row = await insertChecked(ctx, userId, body, await takenNamespaces(ctx, userId));
  return checkServer(ctx, userId, row);
}

/**
 * Edits a server. A new URL drops what belonged to the old one: header secrets and the OAuth
 * client secret (unless the edit gives new ones), OAuth credentials (hooks), cached catalogs,
 * and the approval of its tools; then the new URL is tried.
 */
export async function editServer(ctx: ServersContext, userId: string, id: string, raw: unknown): Promise<ServerView> {
  const body = checkBody(raw, 'edit');
  const row = await ownEditable(ctx, userId, id, 'change');
  const patch: ServerPatch = {};
  if (body.name !== undefined) patch.name = checkName(body.name);
  if (body.namespace !== undefined) patch.namespace = checkNamespace(body.namespace);
  if (body.trust !== undefined) patch.trust = checkTrust(body.trust);
  if (body.trustContent !== undefined) patch.trustContent = checkTrustContent(body.trustContent);
  if (body.showViews !== undefined) patch.showViews = checkShowViews(body.showViews);
  if (body.timeoutMs !== undefined) patch.timeoutMs = checkTimeout(body.timeoutMs);
  if (body.enabled !== undefined && body.enabled !== false) {
    throw new FieldProblem(
      'enabled',
      'Only "enabled": false is accepted here; enable a server with POST /api/servers/:id/enable after reviewing its tools.',
    );
  }
  const url = body.url === undefined ? row.url : checkUrl(body.url, { allowLoopback: ctx.allowLoopback });
  const urlChanged = url !== row.url;
  if (urlChanged) {
    await checkOrgPolicy(ctx, userId, url);
    patch.url = url;
  }

  let stored: Record<string, string> = {};
  try {
    stored = openHeaders(row, ctx.box);
  } catch {
    stored = {}; // unreadable: only new values can be given
  }
  if (body.headers !== undefined) {
    // null keeps a stored value, which a new URL never does.
    const keep = urlChanged ? new Set<string>() : new Set(Object.keys(stored).map((n) => n.toLowerCase()));
    const given = checkHeaders(body.headers ?? {}, keep);
    const next: Record<string, string> = {};
    for (const [name, value] of Object.entries(given)) {
      next[name] = value ?? Object.entries(stored).find(([n]) => n.toLowerCase() === name.toLowerCase())![1];
    }
    patch.headersSealed = sealHeaders(ctx.box, row, next);
  }
  if (body.oauthClient !== undefined) {
    const oauth = checkOAuthClient(body.oauthClient);
    patch.oauthClientId = oauth?.clientId ?? null;
    if (!oauth) patch.oauthClientSecretSealed = null;
    else if (oauth.clientSecret) patch.oauthClientSecretSealed = sealClientSecret(ctx.box, row, oauth.clientSecret);
    else if (oauth.clientSecret === null || oauth.clientId !== row.oauthClientId) patch.oauthClientSecretSealed = null;
  }

  const updated = await updateServer(ctx.db, userId, id, patch, { urlChanged });
  if (updated === 'conflict') {
    throw new AppError(
      'conflict',
      'server',
      `You already have a server with the namespace "${patch.namespace}": choose another.`,
      'namespace',
    );
  }
  if (!updated) throw notFound(id);
  if (body.enabled === false && updated.enabled) await setServerEnabled(ctx.db, userId, id, false);
  if (urlChanged) {
    await dropCatalogs(ctx.db, id);
    await runUrlChangeHooks(ctx, { userId, serverId: id, oldUrl: row.url, newUrl: url });
    return checkServer(ctx, userId, updated);
  }
  return serverView(ctx, userId, (await getServer(ctx.db, userId, id)) ?? updated);
}

export async function removeServer(ctx: ServersContext, userId: string, id: string): Promise<void> {
  const row = await ownEditable(ctx, userId, id, 'remove');
  if (!(await deleteServer(ctx.db, userId, id))) throw notFound(id);
  await dropCatalogs(ctx.db, id);
  await runUrlChangeHooks(ctx, { userId, serverId: id, oldUrl: row.url, newUrl: null });
}

/**
 * Connects and lists the tools, bypassing the cache; records the status, protocol version,
 * transport and last error (in words, without secrets).
 */
export async function checkServer(ctx: ServersContext, userId: string, row: ServerRow): Promise<ServerView> {
  let config: McpServerConfig;
  try {
    config = serverConfig(row, ctx.box);
  } catch {
    config = serverConfig(withoutSealedHeaders(row), ctx.box);
  }
  const listed = await ctx.remote.listTools(
    { ...config, timeoutMs: Math.min(config.timeoutMs, TEST_TIMEOUT_MS) },
    { userId },
    { refresh: true },
  );
  const secrets = [...Object.values(config.headers ?? {}), ...safeClientSecret(ctx, row)];
  const updated = await recordServerCheck(ctx.db, userId, row.id, {
    status: listed.error ? (listed.failure ?? 'protocol_error') : 'connected',
    lastError: listed.error ? redactSecrets(listed.error, secrets).slice(0, 1000) : null,
    protocolVersion: listed.protocolVersion ?? (listed.error ? null : row.protocolVersion),
    transport: listed.transport ?? (listed.error ? null : row.transport),
    checkedAt: new Date(),
  });
  if (!updated) throw notFound(row.id);
  return userServerView(updated, listed.error ? await ctx.remote.lastListing(config, { userId }) : listed, {
    headerNames: row.org ? [] : Object.keys(config.headers ?? {}),
    signedIn: await isSignedIn(ctx, userId, row.url),
  });
}

/** The client secret to redact from what the server said; one that cannot be opened was not sent either. */
function safeClientSecret(ctx: ServersContext, row: ServerRow): string[] {
  try {
    const secret = openClientSecret(row, ctx.box);
    return secret === undefined ? [] : [secret];
  } catch {
    return [];
  }
}

export async function testServer(ctx: ServersContext, userId: string, id: string): Promise<ServerView> {
  return checkServer(ctx, userId, await own(ctx, userId, id));
}

/** Lists the tools again, bypassing (and replacing) the cached catalog. */
export async function refreshServer(ctx: ServersContext, userId: string, id: string): Promise<ServerView> {
  return checkServer(ctx, userId, await own(ctx, userId, id));
}

/**
 * The person saw these tools and enables the server: each named tool must be listed now with
 * the fingerprint they saw (else they are looking at an old list and must look again).
 */
export async function enableServerTools(
  ctx: ServersContext,
  userId: string,
  id: string,
  tools: Record<string, string>,
  opts: { orgReview?: boolean } = {},
): Promise<ServerView> {
  // A member's row of a shared server follows the organization's review (lib/servers/org-servers.ts), which passes `orgReview`.
  const row = opts.orgReview ? await own(ctx, userId, id) : await ownEditable(ctx, userId, id, 'review the tools of');
  const config = usableConfig(ctx, row);
  const listing = (await ctx.remote.lastListing(config, { userId })) ?? (await ctx.remote.listTools(config, { userId }, { refresh: true }));
  const current = new Map(listing.tools.map((t) => [t.name, t.fingerprint]));
  for (const [name, fingerprint] of Object.entries(tools)) {
    if (!current.has(name))
      throw new FieldProblem(`tools.${name}`, `The server does not list a tool named "${name}" (any more): refresh its tools.`);
    if (current.get(name) !== fingerprint) {
      throw new AppError('conflict', 'server', `The tool "${name}" changed since you looked at it: review it again.`, `tools.${name}`);
    }
  }
  const updated = await enableServer(ctx.db, userId, id, tools);
  if (!updated) throw notFound(id);
  return serverView(ctx, userId, updated);
}

/** The server's configuration, or a clear refusal when its stored credentials do not open here. */
function usableConfig(ctx: ServersContext, row: ServerRow): McpServerConfig {
  try {
    return serverConfig(row, ctx.box);
  } catch (err) {
    console.error(`[servers] credentials of ${row.id} cannot be opened:`, errorSummary(err));
    throw new AppError('conflict', 'server', CREDENTIALS_UNREADABLE, 'headers');
  }
}

export interface ImportResult {
  added: ServerView[];
  notUsable: Array<{ name: string; reason: string }>;
  problems: Array<{ name: string; field: string; message: string }>;
}

/** Adds every remote entry of a Claude Desktop / VS Code configuration that passes the checks. */
export async function importServers(ctx: ServersContext, userId: string, config: unknown): Promise<ImportResult> {
  let plan;
  try {
    plan = planImport(config);
  } catch (err) {
    if (err instanceof ImportShapeError) throw new AppError('bad_request', 'import', err.message);
    throw err;
  }
  const taken = await takenNamespaces(ctx, userId);
  const problems = [...plan.problems];
  const rows: ServerRow[] = [];
  for (const c of plan.candidates) {
    try {
      rows.push(await insertChecked(ctx, userId, { name: c.name, url: c.url, headers: c.headers }, taken));
    } catch (err) {
      if (err instanceof LimitExceeded) {
        problems.push({ name: c.name, field: 'server', message: err.message });
        continue;
      }
      if (!(err instanceof AppError) || err.type === 'internal') throw err;
      problems.push({ name: c.name, field: err.field ?? 'server', message: err.message });
    }
  }
  const added = await Promise.all(rows.map((r) => checkServer(ctx, userId, r)));
  return { added, notUsable: plan.notUsable, problems };
}
