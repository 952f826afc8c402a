import type { ServerPrompts, ServerResources } from '@/lib/chat/offers';
import type { PromptInfo } from '@/lib/mcp/prompts';
import type { ResourceInfo, ResourceTemplateInfo } from '@/lib/mcp/resources';
import { expandTemplate } from '@/lib/mcp/uri-template';

/**
 * Every decision the composer's `/` menu and `@` picker make, without React: when a menu is open
 * and with which query, what it lists for that query, what a prompt's or a template's form still
 * needs, and what is sent. Tested in composer-offers.test.ts.
 */

export type { ServerPrompts, ServerResources };

/** A prompt in the `/` menu, with its server. */
export interface PromptItem {
  kind: 'prompt';
  key: string;
  serverId: string;
  serverName: string;
  prompt: PromptInfo;
}

/** A resource or a template in the `@` picker, with its server. */
export type ResourceItem =
  | { kind: 'resource'; key: string; serverId: string; serverName: string; resource: ResourceInfo }
  | { kind: 'template'; key: string; serverId: string; serverName: string; template: ResourceTemplateInfo };

/** What the composer sends with the text for one attachment (the body's `attachments`). */
export type AttachmentRef = { serverId: string; uri: string } | { toolCallId: string; uri: string };

/** An attachment as its chip shows it: the server's name, a label, the URI. */
export interface ComposerAttachment {
  ref: AttachmentRef;
  serverName: string;
  label: string;
}

export const MAX_ATTACHMENTS = 5;

/** `/sum` at the very start of an otherwise empty message: the `/` menu, filtered by `sum`. */
export function slashQuery(text: string): string | null {
  const m = /^\/(\S*)$/.exec(text);
  return m ? m[1]! : null;
}

/** `@read` just before the caret (at the start or after a space): the `@` picker, filtered by `read`. */
export function atQuery(text: string, caret: number): { query: string; start: number } | null {
  const m = /(^|\s)@([^\s@]*)$/.exec(text.slice(0, caret));
  return m ? { query: m[2]!, start: caret - m[2]!.length - 1 } : null;
}

/** The text with the `@query` before the caret taken out (it became a chip). */
export function withoutAtQuery(text: string, caret: number): string {
  const at = atQuery(text, caret);
  if (!at) return text;
  return (text.slice(0, at.start) + text.slice(caret)).replace(/^\s+$/, '');
}

/**
 * True when the query begins a word of any field (`draft` finds `review_draft`, `greet` finds
 * `fixture://greetings/{name}`): matching anywhere inside a word made `re` list every prompt of a
 * server named "Fixture", which is no filter at all.
 */
function matches(query: string, ...fields: (string | undefined)[]): boolean {
  const q = query.trim().toLowerCase();
  if (!q) return true;
  return fields.some((f) => {
    const text = f?.toLowerCase();
    if (!text) return false;
    for (let at = text.indexOf(q); at !== -1; at = text.indexOf(q, at + 1)) {
      if (at === 0 || !/[\p{L}\p{N}]/u.test(text[at - 1]!)) return true;
    }
    return false;
  });
}

export function promptItems(servers: ServerPrompts[], query: string): PromptItem[] {
  return servers.flatMap((s) =>
    s.prompts
      .filter((p) => matches(query, p.name, p.title, p.description, s.serverName))
      .map((prompt) => ({
        kind: 'prompt' as const,
        key: `${s.serverId}/${prompt.name}`,
        serverId: s.serverId,
        serverName: s.serverName,
        prompt,
      })),
  );
}

export function resourceItems(servers: ServerResources[], query: string): ResourceItem[] {
  return servers.flatMap((s) => [
    ...s.resources
      .filter((r) => matches(query, r.name, r.title, r.uri, r.description, s.serverName))
      .map((resource) => ({
        kind: 'resource' as const,
        key: `${s.serverId}/r/${resource.uri}`,
        serverId: s.serverId,
        serverName: s.serverName,
        resource,
      })),
    ...s.templates
      .filter((t) => matches(query, t.name, t.title, t.uriTemplate, t.description, s.serverName))
      .map((template) => ({
        kind: 'template' as const,
        key: `${s.serverId}/t/${template.uriTemplate}`,
        serverId: s.serverId,
        serverName: s.serverName,
        template,
      })),
  ]);
}

/** Servers whose listing failed, in their own sentence (shown under the items). */
export function listingProblems(servers: { serverName: string; error: string | null }[]): string[] {
  return servers.flatMap((s) => (s.error ? [s.error] : []));
}

/** The next active index when moving through `count` items (wraps around). */
export function moveActive(active: number, count: number, by: 1 | -1): number {
  if (count === 0) return 0;
  return (active + by + count) % count;
}

/** Argument name → what is wrong with the value typed for it (a required one left empty). */
export function promptFormProblems(prompt: PromptInfo, values: Record<string, string>): Record<string, string> {
  const problems: Record<string, string> = {};
  for (const a of prompt.arguments) if (a.required && !values[a.name]?.trim()) problems[a.name] = 'Required.';
  return problems;
}

/** The arguments sent: the ones filled in (an optional one left empty is not sent). */
export function promptArguments(prompt: PromptInfo, values: Record<string, string>): Record<string, string> {
  return Object.fromEntries(prompt.arguments.flatMap((a) => (values[a.name]?.trim() ? [[a.name, values[a.name]!]] : [])));
}

/** The attachment a resource picked from the list makes. */
export function resourceAttachment(item: Extract<ResourceItem, { kind: 'resource' }>): ComposerAttachment {
  return {
    ref: { serverId: item.serverId, uri: item.resource.uri },
    serverName: item.serverName,
    label: item.resource.title ?? item.resource.name,
  };
}

/** The attachment a template makes once its variables are filled in; null while one is empty. */
export function templateAttachment(
  item: Extract<ResourceItem, { kind: 'template' }>,
  values: Record<string, string>,
): ComposerAttachment | null {
  if (item.template.variables.some((v) => !values[v]?.trim())) return null;
  const uri = expandTemplate(item.template.uriTemplate, values);
  return { ref: { serverId: item.serverId, uri }, serverName: item.serverName, label: uri };
}

/** Adds an attachment unless the same resource is already attached, or the message is full. */
export function addAttachment(list: ComposerAttachment[], next: ComposerAttachment): ComposerAttachment[] {
  if (list.length >= MAX_ATTACHMENTS || list.some((a) => sameRef(a.ref, next.ref))) return list;
  return [...list, next];
}

function sameRef(a: AttachmentRef, b: AttachmentRef): boolean {
  if (a.uri !== b.uri) return false;
  return 'serverId' in a && 'serverId' in b
    ? a.serverId === b.serverId
    : 'toolCallId' in a && 'toolCallId' in b && a.toolCallId === b.toolCallId;
}
