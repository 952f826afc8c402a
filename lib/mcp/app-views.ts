import { createHash } from 'node:crypto';
import { RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';

import type { ConnectDeps } from './connection';
import { MAX_URI_CHARS, readResource, type ResourceContents } from './resources';
import type { Fetched } from './server-content';
import type { CallerIdentity, McpServerConfig, ToolView } from './types';

/**
 * MCP Apps (the `io.modelcontextprotocol/ui` extension, revision 2026-01-26): a tool may declare
 * an interactive view, a `ui://` resource of type `text/html;profile=mcp-app`, in
 * `_meta.ui.resourceUri` (or the older `_meta["ui/resourceUri"]`), and say with
 * `_meta.ui.visibility` who may call it (`["app"]`: only its views, never the model). This module
 * reads that from a listed tool, reads the view through the ordinary resource path (the same
 * connection, URL guard and sign-in as any resource), and turns the view's declared domains into
 * the Content-Security-Policy the view runs under. Nothing here throws: failures are data.
 */

export const VIEW_MIME_TYPE = RESOURCE_MIME_TYPE;
/** A view is one HTML document with its scripts inlined; past this it is refused, not cut. */
export const MAX_VIEW_CHARS = 2 * 1024 * 1024;
/** At most this many declared domains per CSP list are honoured. */
const MAX_DOMAINS = 20;

/** The view a listed tool declares, if any; a malformed declaration counts as none. */
export function toolViewOf(meta: unknown): ToolView | undefined {
  if (!isRecord(meta)) return undefined;
  const ui = isRecord(meta.ui) ? meta.ui : {};
  const uri = typeof ui.resourceUri === 'string' ? ui.resourceUri : meta['ui/resourceUri'];
  if (typeof uri !== 'string' || !uri.startsWith('ui://') || uri.length > MAX_URI_CHARS) return undefined;
  // Without a visibility list a tool is for the model and its views alike (the spec's default).
  const visibility = Array.isArray(ui.visibility) ? ui.visibility : ['model', 'app'];
  return {
    resourceUri: uri,
    modelVisible: visibility.includes('model'),
    ...(visibility.includes('app') ? {} : { appCallable: false as const }),
  };
}

/** The domains a view declared it needs (`_meta.ui.csp` of the resource's contents). */
export interface ViewDomains {
  connect: string[];
  resource: string[];
  /** Origins the view may frame (`frameDomains`: https only); none by default. */
  frame: string[];
}

export interface ToolViewDocument {
  html: string;
  domains: ViewDomains;
}

export async function readToolView(
  deps: ConnectDeps,
  server: McpServerConfig,
  caller: CallerIdentity,
  uri: string,
): Promise<Fetched<ToolViewDocument>> {
  const read = await readResource(deps, server, caller, uri);
  if (!read.ok) return read;
  return toolViewDocument(server, uri, read.value);
}

/** The view document in a resource's contents, checked (its type, its size), or why it is refused. */
export function toolViewDocument(server: McpServerConfig, uri: string, contents: ResourceContents[]): Fetched<ToolViewDocument> {
  const item = contents.find((c) => c.uri === uri) ?? contents[0];
  if (!item || item.text === undefined) {
    return { ok: false, message: `${server.displayName} sent no HTML for the view ${uri}.` };
  }
  if (item.mimeType !== VIEW_MIME_TYPE) {
    return {
      ok: false,
      message:
        `${server.displayName} sent the view ${uri} as "${item.mimeType ?? 'no type'}"; ` +
        `an interactive view must be "${VIEW_MIME_TYPE}".`,
    };
  }
  if (item.text.length > MAX_VIEW_CHARS) {
    return {
      ok: false,
      message: `${server.displayName}'s view ${uri} is ${item.text.length} characters; views are limited to ${MAX_VIEW_CHARS}.`,
    };
  }
  return { ok: true, value: { html: item.text, domains: viewDomainsOf(item.meta) } };
}

/**
 * What the person reviews of a view, as one hash: its HTML and the domains it declares it may
 * reach. Part of its tool's fingerprint (lib/mcp/catalog.ts), so a view whose page or reach
 * changes suspends its tool like a changed description; checked again when the view is served.
 */
export function viewContentHash(doc: ToolViewDocument): string {
  // Frame origins only when declared: views that declare none keep the hashes stored before they counted.
  const { connect, resource, frame } = doc.domains;
  const body = JSON.stringify({ html: doc.html, connect, resource, ...(frame.length && { frame }) });
  return `sha256:${createHash('sha256').update(body).digest('hex')}`;
}

/** The domains a view's resource declares in `_meta.ui.csp` (the content item's; none when absent). */
export function viewDomainsOf(meta: unknown): ViewDomains {
  const ui = isRecord(meta) && isRecord(meta.ui) ? meta.ui : {};
  const csp = isRecord(ui.csp) ? ui.csp : {};
  return {
    connect: origins(csp.connectDomains),
    resource: origins(csp.resourceDomains),
    // A framed page is a document: https only (a wss:// origin frames nothing).
    frame: origins(csp.frameDomains).filter((d) => d.toLowerCase().startsWith('https://')),
  };
}

/**
 * The CSP a view runs under. The view is untrusted HTML: by default it reaches no network at all
 * (`default-src 'none'`), so what it was given (the tool's input and result) cannot leave the
 * browser; it may run its own inline scripts and styles (a view is one self-contained document)
 * and show inline images. Only origins the server declared are added, each to the directives the
 * spec maps it to. `sandbox allow-scripts` makes the document an opaque origin even when opened
 * on its own, outside our frame: it never shares the app's cookies, storage or DOM; no forms,
 * popups or top navigation. Nested frames only from declared `frameDomains` (`frame-src`); a
 * nested frame inherits the view's sandbox (scripts only), so it is an opaque origin too.
 */
export function viewCsp(domains: ViewDomains): string {
  const resource = domains.resource.join(' ');
  const withResources = (base: string) => (resource ? `${base} ${resource}` : base);
  return [
    'sandbox allow-scripts',
    "default-src 'none'",
    withResources("script-src 'unsafe-inline'"),
    withResources("style-src 'unsafe-inline'"),
    withResources('img-src data:'),
    ...(resource ? [`font-src ${resource}`, `media-src ${resource}`] : []),
    `connect-src ${domains.connect.length ? domains.connect.join(' ') : "'none'"}`,
    `frame-src ${domains.frame.length ? domains.frame.join(' ') : "'none'"}`,
    "base-uri 'none'",
    "form-action 'none'",
    // Only Switchboard's own pages may frame it.
    "frame-ancestors 'self'",
  ].join('; ');
}

/**
 * Declared domains kept only when they are plain origins (`https://host[:port]`, `wss://…`, a
 * `*.` wildcard for subdomains): anything else — a keyword such as `'unsafe-eval'`, a bare `*`,
 * a path, a `;` that would start a new directive — is dropped, so a server cannot widen the
 * policy beyond the origins it names.
 */
function origins(raw: unknown): string[] {
  if (!Array.isArray(raw)) return [];
  return raw
    .filter((d): d is string => typeof d === 'string' && /^(https|wss):\/\/(\*\.)?[a-z0-9.-]+(:\d{1,5})?$/i.test(d))
    .slice(0, MAX_DOMAINS);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
