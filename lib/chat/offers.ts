import type { Trust } from '@/db/vocabulary';
import type { ConnectDeps } from '@/lib/mcp/connection';
import { listPrompts, type PromptInfo } from '@/lib/mcp/prompts';
import { listResources, type ResourceInfo, type ResourceTemplateInfo } from '@/lib/mcp/resources';
import type { Fetched } from '@/lib/mcp/server-content';
import type { McpServerConfig } from '@/lib/mcp/types';

import type { ChatRuntime } from './runtime';
import { assertOwned, composeDeps } from './service';

/**
 * What the person's servers offer the composer: prompts for the `/` menu, resources and
 * templates for the `@` picker. Every server the model may use (built-ins and enabled ones) is
 * asked at once; one that fails or wants a sign-in is listed with its sentence, and one with
 * nothing to offer is left out.
 */

interface ServerOffer {
  serverId: string;
  serverName: string;
  trust: Trust;
  /** Listing failed: why, in a sentence naming the server. */
  error: string | null;
  /** The failure is that the person must sign in to the server first (the servers page offers Connect). */
  needsSignIn: boolean;
}

export interface ServerPrompts extends ServerOffer {
  prompts: PromptInfo[];
}

export interface ServerResources extends ServerOffer {
  resources: ResourceInfo[];
  templates: ResourceTemplateInfo[];
}

export async function conversationPrompts(rt: ChatRuntime, userId: string, conversationId: string): Promise<{ servers: ServerPrompts[] }> {
  const servers = await offeringServers(rt, userId, conversationId, (deps, server) =>
    listPrompts(deps, server, { userId, conversationId }),
  );
  return {
    servers: servers.flatMap(({ server, fetched }) => {
      const prompts = fetched.ok ? fetched.value : [];
      if (fetched.ok && prompts.length === 0) return [];
      return [{ ...about(server, fetched), prompts }];
    }),
  };
}

export async function conversationResources(
  rt: ChatRuntime,
  userId: string,
  conversationId: string,
): Promise<{ servers: ServerResources[] }> {
  const servers = await offeringServers(rt, userId, conversationId, (deps, server) =>
    listResources(deps, server, { userId, conversationId }),
  );
  return {
    servers: servers.flatMap(({ server, fetched }) => {
      const { resources, templates } = fetched.ok ? fetched.value : { resources: [], templates: [] };
      if (fetched.ok && resources.length === 0 && templates.length === 0) return [];
      return [{ ...about(server, fetched), resources, templates }];
    }),
  };
}

async function offeringServers<T>(
  rt: ChatRuntime,
  userId: string,
  conversationId: string,
  list: (deps: ConnectDeps, server: McpServerConfig) => Promise<Fetched<T>>,
) {
  await assertOwned(rt, userId, conversationId);
  const deps = composeDeps(rt);
  const servers = await deps.serversFor(userId);
  return Promise.all(servers.map(async (server) => ({ server, fetched: await list(deps.connectDeps, server) })));
}

function about(server: McpServerConfig, fetched: Fetched<unknown>): ServerOffer {
  return {
    serverId: server.id,
    serverName: server.displayName,
    trust: server.trust,
    error: fetched.ok ? null : fetched.message,
    needsSignIn: !fetched.ok && fetched.needsSignIn !== undefined,
  };
}
