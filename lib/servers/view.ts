import type { ServerRow } from '@/db/queries/servers';
import type { OrgServerAuth, ServerStatus, ServerTransport, Trust } from '@/db/vocabulary';
import { reviewState } from '@/lib/mcp/catalog';
import type { ListedCatalog } from '@/lib/mcp/gateway';
import type { CatalogTool, ServerCatalog, ToolAnnotations } from '@/lib/mcp/types';

/**
 * Said when a server's sealed credentials do not open: sealed under a key no longer held, or not
 * for this server (a value copied from another row is refused, lib/secrets/seal-contexts.ts).
 */
export const CREDENTIALS_UNREADABLE =
  "The server's stored credentials cannot be read (the encryption key changed, or they were not stored for this server): enter them again.";

/**
 * What the servers page (and the API) sees of a server. Never a secret: header names without
 * their values, whether an OAuth client secret is stored but not the secret.
 */
export interface ServerToolView {
  name: string;
  title: string | null;
  description: string | null;
  /** The hints the server declared; null when it declared none ("not annotated"). */
  annotations: Pick<ToolAnnotations, 'readOnlyHint' | 'destructiveHint' | 'idempotentHint' | 'openWorldHint'> | null;
  fingerprint: string;
  /** The person approved this tool as it is now (same fingerprint); only such tools are offered. */
  reviewed: boolean;
  /**
   * Its interactive view (MCP Apps), part of what is reviewed: where it comes from, whether the
   * model may call the tool too, and the hash of the page and reach read at listing (null: unread).
   */
  view: { resourceUri: string; modelVisible: boolean; contentHash: string | null } | null;
}

export interface ServerView {
  id: string;
  name: string;
  namespace: string;
  url: string;
  /** Whether its annotations are believed. */
  trust: Trust;
  /** Whether what it returns is believed (unless it is, its output taints the conversation). */
  trustContent: boolean;
  /** Whether its tools' interactive views (MCP Apps) show in their cards. */
  showViews: boolean;
  timeoutMs: number;
  enabled: boolean;
  builtin: boolean;
  headerNames: string[];
  oauthClient: { clientId: string; hasSecret: boolean } | null;
  status: ServerStatus;
  lastError: string | null;
  protocolVersion: string | null;
  transport: ServerTransport | null;
  checkedAt: string | null;
  /** Enabled, and some tool is new or changed since the person approved: it waits for review. */
  toolsChanged: boolean;
  tools: ServerToolView[];
  skipped: Array<{ name: string; reason: string }>;
  /** This person has an OAuth sign-in (tokens) stored for the server: the page offers Disconnect. */
  signedIn: boolean;
  /**
   * The organization's shared server this is the person's use of (null: their own): they cannot
   * edit or remove it; `required` ones they cannot turn off either. Never the shared credential.
   */
  org: { serverId: string; orgId: string; orgName: string; required: boolean; auth: OrgServerAuth } | null;
}

function toolViews(listing: ServerCatalog | null, isReviewed: (tool: CatalogTool) => boolean): ServerToolView[] {
  return (listing?.tools ?? []).map((t) => ({
    name: t.name,
    title: t.title ?? null,
    description: t.description ?? null,
    annotations: t.declaredAnnotations ?? null,
    fingerprint: t.fingerprint,
    reviewed: isReviewed(t),
    view: t.view ? { resourceUri: t.view.resourceUri, modelVisible: t.view.modelVisible, contentHash: t.view.contentHash ?? null } : null,
  }));
}

export function userServerView(
  row: ServerRow,
  listing: ServerCatalog | null,
  extra: { headerNames: string[]; credentialsUnreadable?: boolean; signedIn?: boolean },
): ServerView {
  const tools = toolViews(listing, (tool) => reviewState(row.reviewedTools, tool) !== 'no');
  return {
    id: row.id,
    name: row.name,
    namespace: row.namespace,
    url: row.url,
    trust: row.trust,
    trustContent: row.trustContent,
    showViews: row.showViews,
    timeoutMs: row.timeoutMs,
    enabled: row.enabled,
    builtin: false,
    headerNames: extra.headerNames,
    oauthClient: row.oauthClientId ? { clientId: row.oauthClientId, hasSecret: row.oauthClientSecretSealed !== null } : null,
    status: row.status,
    lastError: extra.credentialsUnreadable ? CREDENTIALS_UNREADABLE : row.lastError,
    protocolVersion: row.protocolVersion,
    transport: row.transport,
    checkedAt: row.checkedAt?.toISOString() ?? null,
    toolsChanged: row.enabled && tools.some((t) => !t.reviewed),
    tools,
    skipped: (listing?.skipped ?? []).map((s) => ({ name: s.name, reason: s.reason })),
    signedIn: extra.signedIn === true,
    org: row.org
      ? { serverId: row.org.orgServerId, orgId: row.org.orgId, orgName: row.org.orgName, required: row.org.required, auth: row.org.auth }
      : null,
  };
}

/** A first-party server: always on, read-only, every tool counts as reviewed. */
export function builtinServerView(listing: ListedCatalog): ServerView {
  const s = listing.server;
  return {
    id: s.id,
    name: s.displayName,
    namespace: s.namespace,
    url: s.url,
    trust: s.trust,
    trustContent: s.trustContent === true,
    showViews: s.showViews !== false,
    timeoutMs: s.timeoutMs,
    enabled: true,
    builtin: true,
    headerNames: [],
    oauthClient: null,
    status: listing.error ? (listing.failure ?? 'protocol_error') : 'connected',
    lastError: listing.error ?? null,
    protocolVersion: listing.protocolVersion ?? null,
    transport: listing.error ? null : 'streamable_http',
    checkedAt: null,
    toolsChanged: false,
    tools: toolViews(listing, () => true),
    skipped: listing.skipped.map((x) => ({ name: x.name, reason: x.reason })),
    signedIn: false,
    org: null,
  };
}
