// What the servers page reads from /api/servers, and the pure decisions the page makes about it
// (labels, what to review, the bodies it sends). No React here: server-view.test.ts covers it.

import type { BadgeTone } from '@/app/_components/ui';
import type { ServerStatus, ServerTransport } from '@/db/vocabulary';
import type { SignInFailure } from '@/lib/mcp/oauth';
import type { SharedServerOffer } from '@/lib/servers/org-servers';
import type { ServerView as LibServerView, ServerToolView } from '@/lib/servers/view';

export type { ServerStatus, ServerTransport } from '@/db/vocabulary';
export type { ServerToolView } from '@/lib/servers/view';
export type { ImportResult } from '@/lib/servers/service';

type ToolAnnotations = NonNullable<ServerToolView['annotations']>;

/** What GET /api/servers sends of each server (lib/servers/view.ts). */
export type ServerView = LibServerView;

/** `shared`: the organizations' optional shared servers the person does not use yet (they may turn them on). */
export type ServerList = { servers: ServerView[]; builtin: ServerView[]; shared: SharedServerOffer[] };

/** Status in words (never by colour alone), with the badge tone that goes with it. */
export const STATUS: Record<ServerStatus, { label: string; tone: BadgeTone }> = {
  unchecked: { label: 'Not checked yet', tone: 'neutral' },
  connected: { label: 'Connected', tone: 'success' },
  needs_sign_in: { label: 'Needs sign-in', tone: 'warning' },
  unreachable: { label: 'Unreachable', tone: 'danger' },
  protocol_error: { label: 'Protocol error', tone: 'danger' },
};

export const TRANSPORT: Record<ServerTransport, string> = {
  streamable_http: 'Streamable HTTP',
  sse: 'HTTP+SSE (legacy)',
};

export type AnnotationBadge = { key: string; label: string; tone: BadgeTone; title: string };

/** A tool's annotations as small badges; `null` annotations say "not annotated". */
export function annotationBadges(annotations: ToolAnnotations | null): AnnotationBadge[] {
  if (!annotations || Object.values(annotations).every((v) => v === undefined)) {
    return [
      {
        key: 'none',
        label: 'not annotated',
        tone: 'neutral',
        title: 'The server says nothing about what this tool does, so Switchboard asks before it runs.',
      },
    ];
  }
  const out: AnnotationBadge[] = [];
  if (annotations.readOnlyHint)
    out.push({ key: 'read', label: 'read-only', tone: 'neutral', title: 'The server says this tool only reads.' });
  if (annotations.destructiveHint && !annotations.readOnlyHint)
    out.push({ key: 'destructive', label: 'destructive', tone: 'danger', title: 'The server says this tool can delete or overwrite.' });
  if (annotations.idempotentHint)
    out.push({
      key: 'idempotent',
      label: 'idempotent',
      tone: 'neutral',
      title: 'Calling it twice with the same input does no more than once.',
    });
  if (annotations.openWorldHint)
    out.push({ key: 'open', label: 'open world', tone: 'info', title: 'It reaches beyond the server (the web, other services).' });
  return out;
}

export function isDestructive(tool: ServerToolView): boolean {
  return Boolean(tool.annotations?.destructiveHint && !tool.annotations.readOnlyHint);
}

/** The server has tools the person has not enabled in their current form: show the review. */
export function needsReview(server: ServerView): boolean {
  return !server.builtin && server.tools.length > 0 && (server.toolsChanged || server.tools.some((t) => !t.reviewed));
}

/** How a tool in the review is marked: everything is new on a first review; later, what changed. */
export function reviewMark(server: ServerView, tool: ServerToolView): 'new or changed' | null {
  const firstReview = server.tools.every((t) => !t.reviewed);
  return !firstReview && !tool.reviewed ? 'new or changed' : null;
}

/** The body of POST /api/servers/:id/enable: exactly the definitions the person saw. */
export function enableBody(server: ServerView): { tools: Record<string, string> } {
  return { tools: Object.fromEntries(server.tools.map((t) => [t.name, t.fingerprint])) };
}

/**
 * Connect is offered when the server asks for sign-in, Disconnect when a credential is stored. A
 * shared server with the organization's credential has no sign-in of the person's: a refusal is
 * for its admins to fix.
 */
export function oauthActions(server: ServerView): { connect: boolean; disconnect: boolean } {
  return { connect: server.status === 'needs_sign_in' && server.org?.auth !== 'shared', disconnect: server.signedIn === true };
}

/**
 * What the servers page says when the OAuth callback brings the person back signed in: its tools
 * are usable only once enabled, so a server still waiting for review says so.
 */
/** How the OAuth callback came back to this page (read from the query by page.tsx). */
export type OAuthReturn = { kind: 'connected'; serverId: string } | { kind: 'failed'; message: string };

/**
 * What the page says for each reason the callback gives (`?oauth=failed&reason=<code>`). Only
 * these sentences are ever shown: the query is written by whoever made the link, so any text in
 * it (a `message`, an unknown reason) is never put on the page. The detail is in the server log.
 */
export const SIGN_IN_FAILED: Record<SignInFailure, string> = {
  missing_state: 'The sign-in answer could not be matched to a sign-in you started. Connect again from this page.',
  unknown_state: 'The sign-in answer does not match any sign-in in progress. Connect again from this page.',
  not_yours: 'This sign-in was started in another browser session. Connect again from here.',
  used: 'This sign-in answer was already used.',
  expired: 'The sign-in took too long and expired. Connect again.',
  server_gone: 'The server was removed or its address changed while you were signing in.',
  wrong_issuer: 'The sign-in answer came from a different authorization server than the one asked, so it was refused.',
  denied: "The server's sign-in did not complete: access was not granted.",
  failed: 'Signing in could not be finished. Try again; if it keeps failing, the server may be misconfigured.',
};
const SIGN_IN_FAILED_GENERIC = 'Signing in failed. Try again.';

/** The callback's return, from the page's query: a known reason's sentence, never text from the query. */
export function oauthReturnOf(query: (key: string) => string | undefined): OAuthReturn | null {
  if (query('oauth') === 'connected') return { kind: 'connected', serverId: query('server') ?? '' };
  if (query('oauth') !== 'failed') return null;
  const reason = query('reason');
  const known = reason !== undefined && Object.hasOwn(SIGN_IN_FAILED, reason);
  return { kind: 'failed', message: known ? SIGN_IN_FAILED[reason as SignInFailure] : SIGN_IN_FAILED_GENERIC };
}

export function signedInNotice(server: ServerView | undefined): string {
  if (!server) return 'Signed in. Its tools can be used once enabled.';
  return needsReview(server)
    ? `Signed in to ${server.name}. Review its tools below; Claude can use them once you enable them.`
    : `Signed in to ${server.name}. Its tools can be used now.`;
}

// ---- The add / edit form ----

export type HeaderRow = { key: number; name: string; value: string };

export type ServerForm = {
  name: string;
  namespace: string;
  url: string;
  /** "Trust its annotations": its read-only claims are believed. */
  trust: 'trusted' | 'untrusted';
  /** "Trust its content": what it returns does not taint the conversation. */
  trustContent: boolean;
  showViews: boolean;
  timeoutSeconds: string;
  /** Edit: whether the person chose to replace the stored headers (an add always sends its rows). */
  replaceHeaders: boolean;
  headers: HeaderRow[];
  clientId: string;
  clientSecret: string;
};

/**
 * What the two trust switches mean, in the words of the form (lib/consent/policy.ts decides; these
 * must say what it does). Annotations and content are separate: a web search can be honest about
 * only reading, and still return a page anyone wrote.
 */
export const SHOW_VIEWS_HINT =
  'Show the interactive views its tools declare (MCP Apps) inside their cards. Off: the cards show the text result ' +
  'and a note, and no view is read from the server.';

export const TRUST_HINTS = {
  annotations:
    'Believe what it says about its tools: a tool it marks read-only runs without asking, ' +
    'unless the conversation holds content you do not trust.',
  content:
    'Believe what its tools return. Unless you do, its results, questions, progress, prompts and resources mark the ' +
    'conversation as holding content you do not trust, which could steer the model. From then on, Switchboard asks you ' +
    'before any tool that reaches outside systems, any tool whose read-only claim it does not believe, and before reading ' +
    'your notes — even on a trusted server, and even if you allowed the tool to run without asking. ' +
    'Trust only content nobody else can write: a web search, a mailbox or a shared document carries other people’s words.',
} as const;

/** The server's default (DEFAULT_TIMEOUT_MS in lib/servers/fields.ts). */
export const DEFAULT_TIMEOUT_SECONDS = 60;

export function emptyForm(): ServerForm {
  return {
    name: '',
    namespace: '',
    url: '',
    trust: 'untrusted',
    trustContent: false,
    showViews: true,
    timeoutSeconds: String(DEFAULT_TIMEOUT_SECONDS),
    replaceHeaders: true,
    headers: [],
    clientId: '',
    clientSecret: '',
  };
}

export function formFrom(server: ServerView): ServerForm {
  return {
    name: server.name,
    namespace: server.namespace,
    url: server.url,
    trust: server.trust,
    trustContent: server.trustContent,
    showViews: server.showViews,
    timeoutSeconds: String(Math.round(server.timeoutMs / 1000)),
    replaceHeaders: false,
    headers: server.headerNames.map((name, i) => ({ key: i, name, value: '' })),
    clientId: server.oauthClient?.clientId ?? '',
    clientSecret: '',
  };
}

export type FormProblem = { field: string; message: string };

/**
 * The POST / PATCH body from the form. For an edit only what changed is sent; header values and
 * the client secret are sent only when typed (they are never read back). A problem the browser
 * can see for itself comes back with its field, like the server's own errors.
 */
export function serverBody(form: ServerForm, original?: ServerView): { body: Record<string, unknown> } | { problem: FormProblem } {
  const body: Record<string, unknown> = {};
  const put = (key: string, value: unknown, before: unknown) => {
    if (!original || value !== before) body[key] = value;
  };
  const name = form.name.trim();
  if (!name) return { problem: { field: 'name', message: 'Give the server a name.' } };
  const url = form.url.trim();
  if (!url) return { problem: { field: 'url', message: 'Enter the server’s URL.' } };
  put('name', name, original?.name);
  put('url', url, original?.url);
  const namespace = form.namespace.trim();
  if (namespace) put('namespace', namespace, original?.namespace);
  put('trust', form.trust, original?.trust);
  put('trustContent', form.trustContent, original?.trustContent);
  // A new server shows views unless told otherwise: the add sends it only when switched off.
  if (form.showViews !== (original?.showViews ?? true)) body.showViews = form.showViews;

  const seconds = Number(form.timeoutSeconds);
  if (!Number.isFinite(seconds) || seconds <= 0)
    return { problem: { field: 'timeoutMs', message: 'The timeout is a number of seconds above zero.' } };
  put('timeoutMs', Math.round(seconds * 1000), original?.timeoutMs);

  if (!original || form.replaceHeaders) {
    const headers: Record<string, string | null> = {};
    const seen = new Set<string>();
    for (const row of form.headers) {
      const key = row.name.trim();
      if (!key && !row.value) continue;
      if (!key) return { problem: { field: 'headers', message: 'Each header needs a name.' } };
      if (seen.has(key.toLowerCase())) return { problem: { field: 'headers', message: `The header ${key} is listed twice.` } };
      seen.add(key.toLowerCase());
      // An edit that leaves a stored header's value empty keeps it (null), unless the URL changed.
      const stored = original?.headerNames.some((n) => n.toLowerCase() === key.toLowerCase());
      headers[key] = row.value === '' && stored && url === original?.url ? null : row.value;
    }
    // An add sends headers only when there are some; an edit that replaces them sends the new set (maybe none).
    if (original || seen.size > 0) body.headers = headers;
  }

  const clientId = form.clientId.trim();
  const clientChanged = clientId !== (original?.oauthClient?.clientId ?? '') || form.clientSecret !== '';
  if (clientChanged) {
    if (!clientId && form.clientSecret) return { problem: { field: 'oauthClient', message: 'A client secret needs its client ID.' } };
    if (clientId) body.oauthClient = { clientId, ...(form.clientSecret && { clientSecret: form.clientSecret }) };
    else if (original) body.oauthClient = null;
  }
  return { body };
}

/** Which form field an API error's `field` belongs to (`headers.X-Api-Key` → headers). */
export function formFieldOf(field: string | undefined): string | undefined {
  if (!field) return undefined;
  return field.split(/[.[]/)[0];
}

/** The URL changed on an edit: stored header values and OAuth credentials will be dropped. */
export function urlChangeDropsSecrets(form: ServerForm, original?: ServerView): boolean {
  if (!original || form.url.trim() === original.url) return false;
  return original.headerNames.length > 0 || original.oauthClient?.hasSecret === true || original.signedIn === true;
}

/** Parses pasted or picked import text; a problem comes back in words. */
export function parseImport(text: string): { config: unknown } | { problem: string } {
  if (!text.trim()) return { problem: 'Paste a configuration or choose a file.' };
  try {
    const config: unknown = JSON.parse(text);
    if (typeof config !== 'object' || config === null || Array.isArray(config))
      return { problem: 'The configuration must be a JSON object (with "mcpServers" or "servers").' };
    return { config };
  } catch (err) {
    return { problem: `This is not valid JSON: ${err instanceof Error ? err.message : String(err)}` };
  }
}
