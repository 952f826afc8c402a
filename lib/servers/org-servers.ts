import { randomUUID } from 'node:crypto';

import {
  deleteOrgServer,
  getOrgServer,
  insertMemberRow,
  insertOrgServer,
  listOrgServers,
  memberIdsOf,
  memberRowIdOf,
  memberRowsOf,
  missingRequiredServers,
  setOrgServerReviewed,
  sharedServersOfMember,
  updateOrgServer,
  type OrgServerPatch,
  type OrgServerRow,
} from '@/db/queries/org-servers';
import { deleteServer, getServer, listServers } from '@/db/queries/servers';
import { dropCatalogs } from '@/db/queries/tool-catalogs';
import { isOneOf, ORG_SERVER_AUTH, type OrgServerAuth, type Trust } from '@/db/vocabulary';
import { AppError } from '@/lib/http/errors';
import { errorSummary } from '@/lib/log-safe';
import { MANAGING_ROLES, requireOrgRole } from '@/lib/orgs/access';
import { removeMember } from '@/lib/orgs/orgs';

import { openOrgHeaders, sealOrgHeaders } from './config';
import { checkHeaders, checkName, checkNamespace, checkTrust, checkUrl, FieldProblem, namespaceFromName } from './fields';
import { runUrlChangeHooks } from './hooks';
import {
  checkServer,
  checkServerAllowance,
  enableServerTools,
  listServerViews,
  serverView,
  takenNamespaces,
  type ServersContext,
} from './service';
import type { ServerView } from './view';

/**
 * An organization's shared servers (issue 26). An owner or admin adds one once; each member who
 * uses it gets a row of their own in mcp_servers that follows it, so grants, consent, catalogs,
 * the gateway and the audit treat it as any server of theirs. Per-user OAuth: each member's own
 * tokens, found by the server's URL under their user id as for a server they added (so one
 * member's tokens can never serve another). Shared credential: sealed on the organization's row,
 * opened at connect time (lib/servers/config.ts), never in a member's row or view.
 *
 * The admin reviews the tools through their own row (an OAuth server lists its tools only to a
 * signed-in person): what they approve there becomes the organization's reviewed tools, which
 * every member's row follows.
 */

const ADD_FIELDS = new Set(['name', 'namespace', 'url', 'auth', 'headers', 'required', 'trust']);
const EDIT_FIELDS = new Set(['name', 'headers', 'required', 'trust']);

/** What an admin sees of a shared server: never the credential's values. */
export interface OrgServerAdminView {
  id: string;
  name: string;
  namespace: string;
  url: string;
  auth: OrgServerAuth;
  required: boolean;
  trust: Trust;
  headerNames: string[];
  /** Tool name → fingerprint the admin approved for members. */
  reviewedCount: number;
  /** How many members use it. */
  members: number;
  /** The admin's own row of it: its status, tools and sign-in, for Connect and the review. */
  mine: ServerView | null;
}

const notFound = (id: string) => new AppError('not_found', 'org_server', `No shared server with id "${id}" in this organization.`);

function checkFields(raw: unknown, known: Set<string>): Record<string, unknown> {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    throw new AppError('bad_request', 'body', 'The body must be a JSON object.');
  for (const key of Object.keys(raw)) {
    if (!known.has(key)) throw new FieldProblem(key, `Unknown field "${key}" (allowed: ${[...known].join(', ')}).`);
  }
  return raw as Record<string, unknown>;
}

function checkAuth(raw: unknown): OrgServerAuth {
  if (typeof raw === 'string' && isOneOf(ORG_SERVER_AUTH, raw)) return raw;
  throw new FieldProblem(
    'auth',
    `auth must be one of ${ORG_SERVER_AUTH.join(', ')} ` +
      '("oauth": each member\'s own sign-in; "shared": a credential the organization keeps).',
  );
}

function checkRequired(raw: unknown): boolean {
  if (typeof raw === 'boolean') return raw;
  throw new FieldProblem('required', 'required must be true (on for every member) or false (each member turns it on).');
}

/** Shared-credential headers: only in `shared` auth, and at least one there (else there is nothing to share). */
function checkSharedHeaders(auth: OrgServerAuth, raw: unknown): Record<string, string> {
  if (auth === 'oauth') {
    if (raw === undefined || (raw && typeof raw === 'object' && Object.keys(raw).length === 0)) return {};
    throw new FieldProblem('headers', 'headers are for "shared" auth only: with "oauth", each member signs in with their own account.');
  }
  const headers = checkHeaders(raw ?? {});
  if (Object.keys(headers).length === 0)
    throw new FieldProblem('headers', 'A shared credential needs at least one header (for example Authorization).');
  return headers as Record<string, string>;
}

async function adminView(ctx: ServersContext, userId: string, server: OrgServerRow): Promise<OrgServerAdminView> {
  let headerNames: string[] = [];
  try {
    headerNames = Object.keys(openOrgHeaders(server, ctx.box));
  } catch {
    headerNames = [];
  }
  const [rowId, members] = await Promise.all([memberRowIdOf(ctx.db, userId, server.id), memberRowsOf(ctx.db, server.id)]);
  const row = rowId ? await getServer(ctx.db, userId, rowId) : null;
  return {
    id: server.id,
    name: server.name,
    namespace: server.namespace,
    url: server.url,
    auth: server.auth,
    required: server.required,
    trust: server.trust,
    headerNames,
    reviewedCount: Object.keys(server.reviewedTools.tools).length,
    members: members.length,
    mine: row ? await serverView(ctx, userId, row) : null,
  };
}

export async function listOrgServerViews(ctx: ServersContext, orgId: string, userId: string): Promise<OrgServerAdminView[]> {
  await requireOrgRole(ctx.db, orgId, userId, MANAGING_ROLES, 'manage shared servers');
  return Promise.all((await listOrgServers(ctx.db, orgId)).map((s) => adminView(ctx, userId, s)));
}

/** Adds it with nothing approved, and the admin's own row of it, tried at once (its tools, or its sign-in, for the review). */
export async function addOrgServer(ctx: ServersContext, orgId: string, userId: string, raw: unknown): Promise<OrgServerAdminView> {
  await requireOrgRole(ctx.db, orgId, userId, MANAGING_ROLES, 'add shared servers');
  const body = checkFields(raw, ADD_FIELDS);
  const name = checkName(body.name);
  const url = checkUrl(body.url, { allowLoopback: ctx.allowLoopback });
  const auth = checkAuth(body.auth);
  const headers = checkSharedHeaders(auth, body.headers);
  const required = body.required === undefined ? false : checkRequired(body.required);
  const trust = body.trust === undefined ? 'untrusted' : checkTrust(body.trust);
  const taken = new Set((await listOrgServers(ctx.db, orgId)).map((s) => s.namespace));
  const namespace = body.namespace === undefined ? namespaceFromName(name, (ns) => taken.has(ns)) : checkNamespace(body.namespace);
  // A shared server counts towards the serversPerUser of the admin adding it (service.ts `checkServerAllowance`).
  await checkServerAllowance(ctx, userId, (await takenNamespaces(ctx, userId)).own);
  const key = { id: randomUUID(), orgId };
  const server = await insertOrgServer(ctx.db, {
    ...key,
    name,
    namespace,
    url,
    auth,
    headersSealed: sealOrgHeaders(ctx.box, key, headers),
    required,
    trust,
    createdBy: userId,
  });
  if (!server)
    throw new AppError(
      'conflict',
      'org_server',
      `The organization has a shared server with the namespace "${namespace}" already.`,
      'namespace',
    );
  const rowId = await insertMemberRow(ctx.db, userId, server);
  const row = rowId ? await getServer(ctx.db, userId, rowId) : null;
  if (row) await checkServer(ctx, userId, row);
  return adminView(ctx, userId, server);
}

/** Name, required, trust, and in `shared` auth a new credential. A new URL is a new server: remove it and add it again. */
export async function editOrgServer(
  ctx: ServersContext,
  orgId: string,
  userId: string,
  id: string,
  raw: unknown,
): Promise<OrgServerAdminView> {
  await requireOrgRole(ctx.db, orgId, userId, MANAGING_ROLES, 'change shared servers');
  const body = checkFields(raw, EDIT_FIELDS);
  const server = await getOrgServer(ctx.db, orgId, id);
  if (!server) throw notFound(id);
  const patch: OrgServerPatch = {};
  if (body.name !== undefined) patch.name = checkName(body.name);
  if (body.required !== undefined) patch.required = checkRequired(body.required);
  if (body.trust !== undefined) patch.trust = checkTrust(body.trust);
  if (body.headers !== undefined) patch.headersSealed = sealOrgHeaders(ctx.box, server, checkSharedHeaders(server.auth, body.headers));
  const updated = await updateOrgServer(ctx.db, orgId, id, patch);
  if (!updated) throw notFound(id);
  if (updated.required) await ensureRowsOfMembers(ctx, updated);
  return adminView(ctx, userId, updated);
}

/**
 * Every member's use of it ends: their rows go with it (and then what only they found: OAuth
 * sign-ins, kept sessions, catalogs). Every row's hooks run even when one fails; the failures are
 * reported after, the removal standing.
 */
export async function removeOrgServer(ctx: ServersContext, orgId: string, userId: string, id: string): Promise<void> {
  await requireOrgRole(ctx.db, orgId, userId, MANAGING_ROLES, 'remove shared servers');
  const server = await getOrgServer(ctx.db, orgId, id);
  if (!server) throw notFound(id);
  const rows = await deleteOrgServer(ctx.db, orgId, id);
  if (!rows) throw notFound(id);
  let failed = 0;
  for (const row of rows) {
    try {
      await dropCatalogs(ctx.db, row.id);
      await runUrlChangeHooks(ctx, { userId: row.userId, serverId: row.id, oldUrl: server.url, newUrl: null });
    } catch (err) {
      console.error(`[servers] dropping what member row ${row.id} of shared server ${id} kept failed:`, errorSummary(err));
      failed++;
    }
  }
  if (failed)
    throw new Error(`Shared server ${id} was removed, but what ${failed} of ${rows.length} member row(s) kept could not all be dropped.`);
}

/**
 * Removes a member (lib/orgs/orgs.ts `removeMember`: their rows of the organization's shared
 * servers go with the membership), then forgets what those rows found, as removing a shared server
 * does: their OAuth sign-ins for it, kept sessions, catalogs. Every row's hooks run even when one
 * fails; the failures are reported after, the removal standing.
 */
export async function removeOrgMember(ctx: ServersContext, orgId: string, actorId: string, targetId: string): Promise<{ removed: true }> {
  const { sharedRows } = await removeMember(ctx.db, orgId, actorId, targetId);
  let failed = 0;
  for (const row of sharedRows) {
    try {
      await dropCatalogs(ctx.db, row.id);
      await runUrlChangeHooks(ctx, { userId: targetId, serverId: row.id, oldUrl: row.url, newUrl: null });
    } catch (err) {
      console.error(`[servers] dropping what removed member's row ${row.id} kept failed:`, errorSummary(err));
      failed++;
    }
  }
  if (failed) throw new Error(`The member was removed, but what ${failed} of their shared server row(s) kept could not all be dropped.`);
  return { removed: true };
}

/**
 * The admin saw these tools (through their own row, as listed now: each fingerprint checked as for
 * a server of their own) and approves them for every member; a required server's members get their rows.
 */
export async function reviewOrgServer(
  ctx: ServersContext,
  orgId: string,
  userId: string,
  id: string,
  tools: Record<string, string>,
): Promise<OrgServerAdminView> {
  await requireOrgRole(ctx.db, orgId, userId, MANAGING_ROLES, 'review shared servers');
  const server = await getOrgServer(ctx.db, orgId, id);
  if (!server) throw notFound(id);
  const rowId = (await memberRowIdOf(ctx.db, userId, id)) ?? (await insertMemberRow(ctx.db, userId, server));
  if (!rowId) throw new AppError('conflict', 'org_server', 'Your own row of this server could not be made: try again.');
  await enableServerTools(ctx, userId, rowId, tools, { orgReview: true });
  const updated = await setOrgServerReviewed(ctx.db, orgId, id, tools);
  if (!updated) throw notFound(id);
  if (updated.required) await ensureRowsOfMembers(ctx, updated);
  return adminView(ctx, userId, updated);
}

async function ensureRowsOfMembers(ctx: ServersContext, server: OrgServerRow): Promise<void> {
  for (const memberId of await memberIdsOf(ctx.db, server.orgId)) await insertMemberRow(ctx.db, memberId, server);
}

// ── the member's side ──────────────────────────────────────────────────────────────────────

/** A required shared server is on for every member: their row is made the first time it is missing (a new member, a new server). */
export async function ensureRequiredServers(ctx: Pick<ServersContext, 'db'>, userId: string): Promise<void> {
  for (const server of await missingRequiredServers(ctx.db, userId)) await insertMemberRow(ctx.db, userId, server);
}

/** What a member sees of their organizations' shared servers that they do not use yet (optional ones they may turn on). */
export interface SharedServerOffer {
  id: string;
  orgId: string;
  orgName: string;
  name: string;
  url: string;
  auth: OrgServerAuth;
  required: boolean;
  /** The admin has approved some of its tools: turning it on offers them. */
  reviewed: boolean;
}

export async function sharedServerOffers(ctx: Pick<ServersContext, 'db'>, userId: string): Promise<SharedServerOffer[]> {
  return (await sharedServersOfMember(ctx.db, userId))
    .filter((s) => s.rowId === null)
    .map(({ server, orgName }) => ({
      id: server.id,
      orgId: server.orgId,
      orgName,
      name: server.name,
      url: server.url,
      auth: server.auth,
      required: server.required,
      reviewed: Object.keys(server.reviewedTools.tools).length > 0,
    }));
}

async function sharedServerOfMember(ctx: ServersContext, userId: string, orgId: string, id: string) {
  const found = (await sharedServersOfMember(ctx.db, userId)).find((s) => s.server.id === id && s.server.orgId === orgId);
  if (!found) throw notFound(id);
  return found;
}

/** The member turns an optional shared server on: their row, following it (tried at once: its tools, or Connect). */
export async function useSharedServer(ctx: ServersContext, userId: string, orgId: string, id: string): Promise<ServerView> {
  const { server, rowId } = await sharedServerOfMember(ctx, userId, orgId, id);
  // Two Turn on at once make one row: the one whose insert found it made reads it.
  const madeId = rowId ?? (await insertMemberRow(ctx.db, userId, server)) ?? (await memberRowIdOf(ctx.db, userId, id));
  const row = madeId ? await getServer(ctx.db, userId, madeId) : null;
  if (!row)
    throw new AppError('conflict', 'org_server', 'You have a server with this namespace already: rename yours, then turn this one on.');
  return checkServer(ctx, userId, row);
}

/** The member turns an optional shared server off (a required one stays on); what only it found goes with it. */
export async function stopUsingSharedServer(ctx: ServersContext, userId: string, orgId: string, id: string): Promise<void> {
  const { server, rowId, orgName } = await sharedServerOfMember(ctx, userId, orgId, id);
  if (server.required)
    throw new AppError('forbidden', 'org_server', `Your organization "${orgName}" requires "${server.name}": it stays on.`);
  if (!rowId || !(await deleteServer(ctx.db, userId, rowId))) return;
  await dropCatalogs(ctx.db, rowId);
  await runUrlChangeHooks(ctx, { userId, serverId: rowId, oldUrl: server.url, newUrl: null });
}

/**
 * The servers page's list: the person's servers (required shared ones made first), the built-in
 * ones, and the shared ones they may turn on.
 */
export async function listServersWithShared(ctx: ServersContext, userId: string) {
  await ensureRequiredServers(ctx, userId);
  // A shared server's row made for the member (required, or by the admin's review) is tried the first time they look: Connect or its tools.
  // One that cannot be tried now stays unchecked (tried at the next listing); the page still loads.
  for (const row of await listServers(ctx.db, userId)) {
    if (!row.org || row.status !== 'unchecked') continue;
    await checkServer(ctx, userId, row).catch((err: unknown) =>
      console.error(`[servers] shared server row ${row.id} could not be tried:`, errorSummary(err)),
    );
  }
  const [views, shared] = await Promise.all([listServerViews(ctx, userId), sharedServerOffers(ctx, userId)]);
  return { ...views, shared };
}
