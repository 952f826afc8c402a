import { ProtocolError as UpstreamError, type Client } from '@modelcontextprotocol/client';
import {
  ProtocolError,
  ProtocolErrorCode,
  UriTemplate,
  type CompleteRequest,
  type CompleteResult,
  type GetPromptResult,
  type Prompt,
  type ReadResourceResult,
  type Resource,
  type ResourceTemplateType,
} from '@modelcontextprotocol/server';

import type { Db } from '@/db/connection';
import { markAccessTokenTainted } from '@/db/queries/access-tokens';
import type { TaintSource } from '@/db/vocabulary';
import { taintOf } from '@/lib/agent/taint';
import { errorSummary } from '@/lib/log-safe';
import type { ConnectDeps } from '@/lib/mcp/connection';
import { joinToolName } from '@/lib/mcp/naming';
import { listPrompts, type PromptInfo } from '@/lib/mcp/prompts';
import { listResources, type ResourceListing } from '@/lib/mcp/resources';
import { withServer } from '@/lib/mcp/server-content';
import type { McpServerConfig } from '@/lib/mcp/types';

import { LIMIT_REACHED, overCallBudget } from './call';
import type { CallBudget } from './call-budget';
import { clientNames } from './client-names';
import type { GatewayPrincipal } from './principal';

/**
 * The resources and prompts of the servers a client's profile exposes, passed through `/mcp`
 * (issue 25), only when the person said so for this client (the profile's `content`, off by
 * default: exposing one tool of a server must not hand over everything it holds). A server is then
 * exposed to the client when its profile exposes at least one of the server's tools; only those
 * servers are listed, read or asked. While the client is tainted, a server holding the person's
 * private data (`privateData`, the notes server) is left out of the lists and a read, prompt or
 * completion of it is refused, as the decision table asks before such a tool runs
 * (lib/consent/policy.ts): content that could steer the client's model must not pull it out. Every request to a server goes
 * through the same connection code as the chat's own reads of prompts and resources
 * (lib/mcp/server-content.ts `withServer`: the URL guard, the person's credentials, the timeout
 * and the response bound).
 *
 * - **Names**: prompts are named as tools are (`<server>__<prompt>`, or their own names when the
 *   profile asks for them and nothing clashes: ./client-names.ts). Resource URIs are passed
 *   unchanged — they are the server's identifiers, which its tool results and embedded
 *   resources quote — and a read goes to the exposed server that lists the URI, else the one with
 *   a template that matches it (when templates of more than one do, -32602 naming them), else the
 *   only exposed server that offers resources at all (so its own "not found" reaches the client);
 *   with none of these, -32602 with the URI, as SEP-2164 asks.
 * - **Taint**: what a server whose content the person does not trust returns (a resource, a
 *   rendered prompt, completion values) has been read by the client's model, so it taints the
 *   client's standing context (`access_tokens.tainted`) as a tool result does.
 * - **Lists** of such a server carry only identifiers — URIs, templates, names, MIME types,
 *   argument names — with our own description ("[Server, content not trusted] name"): no titles
 *   and no descriptions of its own. Listing does not taint, since clients list as they connect:
 *   tainting there would taint every client that reads content at all, and the mark would no
 *   longer tell a client that read something from one that did not.
 * - **Audit**: not audited — the chat does not audit reading a prompt or a resource either;
 *   neither runs a tool.
 * - An upstream's JSON-RPC error is not passed on as it came: its words are the server's and its
 *   code may mean something to the client (input required) that Switchboard does not honour here.
 *   -32602 stays -32602 (with the URI of a read), anything else is -32603, in our words; a failure
 *   to reach the server is -32603 with withServer's sentence. Either taints the client first when
 *   the server's content is not trusted (`upstream` below).
 */

export interface ContentDeps {
  db: Db;
  connectDeps: ConnectDeps;
  /** The servers the principal's profile exposes, in namespace order. */
  servers(p: GatewayPrincipal): Promise<McpServerConfig[]>;
  /** The client's calls of the minute, shared with tools/call: a read, a prompt or a completion is one. */
  budget: CallBudget;
}

export interface GatewayContent {
  listResources(p: GatewayPrincipal): Promise<Resource[]>;
  listResourceTemplates(p: GatewayPrincipal): Promise<ResourceTemplateType[]>;
  readResource(p: GatewayPrincipal, uri: string): Promise<ReadResourceResult>;
  listPrompts(p: GatewayPrincipal): Promise<Prompt[]>;
  getPrompt(p: GatewayPrincipal, name: string, args: Record<string, string>): Promise<GetPromptResult>;
  complete(p: GatewayPrincipal, params: CompleteRequest['params']): Promise<CompleteResult>;
}

type Listed = { server: McpServerConfig; listing: ResourceListing };
type NamedPrompt = { name: string; prompt: PromptInfo; server: McpServerConfig };

export function createGatewayContent(deps: ContentDeps): GatewayContent {
  const caller = (p: GatewayPrincipal) => ({ userId: p.userId });

  /** A content request reaches an upstream server as a tool call does: it counts against the same limit. */
  async function counted(p: GatewayPrincipal): Promise<void> {
    const refused = await overCallBudget(deps.budget, p);
    if (refused !== null) throw new ProtocolError(LIMIT_REACHED, refused);
  }

  /** The servers whose content this client reads: none unless the person said so (`content`). */
  async function exposedServers(p: GatewayPrincipal): Promise<McpServerConfig[]> {
    return p.profile.content === true ? deps.servers(p) : [];
  }

  async function listings(p: GatewayPrincipal): Promise<Listed[]> {
    const servers = await exposedServers(p);
    const read = await Promise.all(servers.map((s) => listResources(deps.connectDeps, s, caller(p))));
    return servers.flatMap((server, i) => {
      const r = read[i]!;
      return r.ok ? [{ server, listing: r.value }] : [];
    });
  }

  async function prompts(p: GatewayPrincipal): Promise<NamedPrompt[]> {
    const servers = await exposedServers(p);
    const read = await Promise.all(servers.map((s) => listPrompts(deps.connectDeps, s, caller(p))));
    const all = servers.flatMap((server, i) => {
      const r = read[i]!;
      return r.ok ? r.value.map((prompt) => ({ prompt, server })) : [];
    });
    const names = clientNames(
      all,
      { own: (x) => x.prompt.name, namespaced: (x) => joinToolName(x.server.namespace, x.prompt.name) },
      { ownNames: p.profile.ownNames },
    );
    return all.map((x, i) => ({ ...x, name: names[i]! }));
  }

  /** Which exposed server a URI is read from (see above), or null. */
  async function serverOfUri(p: GatewayPrincipal, uri: string): Promise<McpServerConfig | null> {
    const listed = await listings(p);
    const exact = listed.find((l) => l.listing.resources.some((r) => r.uri === uri));
    if (exact) return exact.server;
    const templated = listed.filter((l) => l.listing.templates.some((t) => matches(t.uriTemplate, uri)));
    // Which of them means it cannot be told: the namespace order must not pick one server's data for another's URI.
    if (templated.length > 1) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `${uri} matches a resource template of more than one server exposed to this client ` +
          `(${templated.map((l) => l.server.displayName).join(', ')}), so Switchboard cannot tell which to read it from.`,
        { uri },
      );
    }
    if (templated.length === 1) return templated[0]!.server;
    const offering = listed.filter((l) => l.listing.resources.length > 0 || l.listing.templates.length > 0);
    return offering.length === 1 ? offering[0]!.server : null;
  }

  async function taint(p: GatewayPrincipal, server: McpServerConfig, source: TaintSource): Promise<void> {
    if (trusted(server) || p.tainted) return;
    // Fails closed: content the mark could not record is not passed on (the client is told to try again).
    try {
      await markAccessTokenTainted(deps.db, p.client.id, taintOf(source, { serverId: server.id, serverName: server.displayName }));
    } catch (err) {
      console.error('[mcp] could not mark the client tainted:', errorSummary(err));
      throw new ProtocolError(
        ProtocolErrorCode.InternalError,
        `Switchboard could not record that this client read content from ${server.displayName}, ` +
          'so it does not pass that content on. Try again.',
      );
    }
  }

  /** Shown to this client now: not a private-data server while the client is tainted. */
  const shown = (p: GatewayPrincipal) => (x: { server: McpServerConfig }) => privateRefusal(p, x.server) === null;

  /**
   * One request to an exposed server through `withServer`. What comes back other than an answer
   * — the server's JSON-RPC error, or withServer's sentence about a failure, which may quote the
   * server — is the server's text too: from a server whose content is not trusted it taints the
   * client before the client hears of it. The server's error codes and words are not passed on:
   * -32602 stays -32602 (for a read with our `data.uri`, SEP-2164), anything else (an
   * input-required style error included) is -32603, both in our words.
   */
  async function upstream<T>(
    p: GatewayPrincipal,
    server: McpServerConfig,
    req: { action: string; source: TaintSource; uri?: string },
    ask: (client: Client, request: { timeout: number; signal: AbortSignal }) => Promise<T>,
  ): Promise<T> {
    const fetched = await withServer(deps.connectDeps, server, caller(p), req.action, async (client, request) => {
      try {
        return { ok: true as const, value: await ask(client, request) };
      } catch (error) {
        if (error instanceof UpstreamError) return { ok: false as const, code: error.code };
        throw error;
      }
    });
    if (fetched.ok && fetched.value.ok) return fetched.value.value;
    await taint(p, server, req.source);
    if (!fetched.ok) throw new ProtocolError(ProtocolErrorCode.InternalError, fetched.message);
    if (fetched.value.code === ProtocolErrorCode.InvalidParams) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `${server.displayName} refused to ${req.action}: it found the request invalid or has no such item.`,
        req.uri === undefined ? undefined : { uri: req.uri },
      );
    }
    throw new ProtocolError(ProtocolErrorCode.InternalError, `${server.displayName} answered with an error when asked to ${req.action}.`);
  }

  return {
    async listResources(p) {
      return (await listings(p))
        .filter(shown(p))
        .flatMap((l) =>
          l.listing.resources.map((r) =>
            withDescription(
              trusted(l.server)
                ? r
                : { uri: r.uri, name: r.name, ...(r.mimeType && { mimeType: r.mimeType }), ...(r.size !== undefined && { size: r.size }) },
              l.server,
            ),
          ),
        );
    },
    async listResourceTemplates(p) {
      // `variables` is the composer's own (lib/mcp/uri-template.ts), not MCP's.
      return (await listings(p))
        .filter(shown(p))
        .flatMap((l) =>
          l.listing.templates.map((t) =>
            withDescription(
              trusted(l.server)
                ? { uriTemplate: t.uriTemplate, name: t.name, title: t.title, mimeType: t.mimeType, description: t.description }
                : { uriTemplate: t.uriTemplate, name: t.name, mimeType: t.mimeType },
              l.server,
            ),
          ),
        );
    },
    async readResource(p, uri) {
      await counted(p);
      const server = await serverOfUri(p, uri);
      if (!server) throw notFound(uri);
      refusePrivate(p, server);
      const result = await upstream(p, server, { action: `read ${uri}`, source: 'resource', uri }, (client, request) =>
        client.readResource({ uri }, request),
      );
      await taint(p, server, 'resource');
      return { contents: result.contents };
    },
    async listPrompts(p) {
      return (await prompts(p)).filter(shown(p)).map(({ name, prompt, server }) => {
        const words = trusted(server);
        return withDescription(
          {
            name,
            ...(words && prompt.title && { title: prompt.title }),
            ...(words && { description: prompt.description ?? prompt.title ?? prompt.name }),
            arguments: prompt.arguments.map((a) => ({
              name: a.name,
              required: a.required,
              ...(words && a.description && { description: a.description }),
            })),
          },
          server,
        );
      });
    },
    async getPrompt(p, name, args) {
      await counted(p);
      const found = (await prompts(p)).find((x) => x.name === name);
      if (!found) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `No prompt named "${name}" is exposed to this client.`);
      refusePrivate(p, found.server);
      const action = `render the prompt "${found.prompt.name}"`;
      const result = await upstream(p, found.server, { action, source: 'prompt' }, (client, request) =>
        client.getPrompt({ name: found.prompt.name, arguments: args }, request),
      );
      await taint(p, found.server, 'prompt');
      return { ...(result.description && { description: result.description }), messages: result.messages };
    },
    async complete(p, params) {
      await counted(p);
      const empty: CompleteResult = { completion: { values: [], hasMore: false } };
      let server: McpServerConfig | undefined;
      let ref = params.ref;
      if (ref.type === 'ref/prompt') {
        const asked = ref.name;
        const found = (await prompts(p)).find((x) => x.name === asked);
        if (!found) return empty;
        server = found.server;
        ref = { type: 'ref/prompt', name: found.prompt.name };
      } else {
        const uri = ref.uri;
        server = (await listings(p)).find((l) => l.listing.templates.some((t) => t.uriTemplate === uri))?.server;
        if (!server) return empty;
      }
      const target = server;
      refusePrivate(p, target);
      const result = await upstream(
        p,
        target,
        { action: 'complete an argument', source: ref.type === 'ref/prompt' ? 'prompt' : 'resource' },
        (client, request) =>
          client.getServerCapabilities()?.completions ? client.complete({ ...params, ref }, request) : Promise.resolve(empty),
      );
      // Values are the server's words, which the client's model may read (a completion of a prompt it renders).
      if (result.completion.values.length > 0) await taint(p, target, ref.type === 'ref/prompt' ? 'prompt' : 'resource');
      return { completion: result.completion };
    },
  };
}

/**
 * Why this tainted client may not read this server's content now, or null: a server holding the
 * person's private data, once the client's model has read content that could steer it.
 */
function privateRefusal(p: GatewayPrincipal, server: McpServerConfig): string | null {
  if (!p.tainted || server.privateData !== true) return null;
  return (
    `"${server.displayName}" holds the person's private data, and this client has read content from "${p.tainted.serverName}" ` +
    'that could steer it, so Switchboard does not pass that data to it. A new token (or connection) starts clean.'
  );
}

function refusePrivate(p: GatewayPrincipal, server: McpServerConfig): void {
  const why = privateRefusal(p, server);
  if (why) throw new ProtocolError(ProtocolErrorCode.InvalidRequest, why);
}

/** Whether the person trusts what this server says (its content): unless they do, only its identifiers are passed on in lists. */
function trusted(server: McpServerConfig): boolean {
  return server.trustContent === true;
}

/**
 * A description that names the server, as tool descriptions do (an item without one gets its
 * name), and says when its content is not trusted — such an item carries no words of the server's
 * beyond its name and URI (see the module comment).
 */
function withDescription<T extends { name: string; description?: string }>(item: T, server: McpServerConfig): T {
  const from = `[${server.displayName}${trusted(server) ? '' : ', content not trusted'}]`;
  return { ...item, description: `${from} ${item.description ?? item.name}` };
}

function matches(template: string, uri: string): boolean {
  try {
    return new UriTemplate(template).match(uri) !== null;
  } catch {
    return false;
  }
}

function notFound(uri: string): ProtocolError {
  return new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `Resource not found: ${uri} is not offered by any server exposed to this client.`,
    {
      uri,
    },
  );
}
