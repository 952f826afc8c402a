import type { ConnectDeps } from './connection';
import { shortText, withServer, type Fetched } from './server-content';
import type { CallerIdentity, McpServerConfig } from './types';
import { templateVariables } from './uri-template';

/**
 * A server's resources (MCP `resources/list`, `resources/templates/list`, `resources/read`): what
 * the composer's `@` picker lists, and what an attachment reads. Templates carry the variables
 * the picker asks for (./uri-template.ts). Failures are data (./server-content.ts).
 */

export const MAX_RESOURCES_PER_SERVER = 200;
export const MAX_TEMPLATES_PER_SERVER = 50;
/** The longest URI taken from a person or a server (listings and attachments alike). */
export const MAX_URI_CHARS = 2_048;

export interface ResourceInfo {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
}

export interface ResourceTemplateInfo {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  variables: string[];
}

export interface ResourceListing {
  resources: ResourceInfo[];
  templates: ResourceTemplateInfo[];
}

/** One item of a `resources/read` result: text, or base64 bytes (`blob`). */
export interface ResourceContents {
  uri: string;
  mimeType?: string;
  text?: string;
  blob?: string;
  /** The item's `_meta` (an interactive view's `ui.csp`: ./app-views.ts). */
  meta?: Record<string, unknown>;
}

export async function listResources(deps: ConnectDeps, server: McpServerConfig, caller: CallerIdentity): Promise<Fetched<ResourceListing>> {
  return withServer(deps, server, caller, 'list its resources', async (client, request) => {
    if (!client.getServerCapabilities()?.resources) return { resources: [], templates: [] };
    const { resources } = await client.listResources(undefined, request);
    // Templates are optional: a server without them answers "method not found".
    const templates = await client
      .listResourceTemplates(undefined, request)
      .then((r) => r.resourceTemplates)
      .catch(() => []);
    return {
      resources: resources.slice(0, MAX_RESOURCES_PER_SERVER).flatMap((r): ResourceInfo[] => {
        const uri = typeof r.uri === 'string' && r.uri.length <= MAX_URI_CHARS ? r.uri : undefined;
        if (!uri) return [];
        return [
          {
            uri,
            name: shortText(r.name, 200) ?? uri,
            title: shortText(r.title, 200),
            description: shortText(r.description),
            mimeType: shortText(r.mimeType, 100),
            ...(typeof r.size === 'number' && Number.isFinite(r.size) && { size: r.size }),
          },
        ];
      }),
      templates: templates.slice(0, MAX_TEMPLATES_PER_SERVER).flatMap((t): ResourceTemplateInfo[] => {
        const uriTemplate = typeof t.uriTemplate === 'string' && t.uriTemplate.length <= MAX_URI_CHARS ? t.uriTemplate : undefined;
        if (!uriTemplate) return [];
        return [
          {
            uriTemplate,
            name: shortText(t.name, 200) ?? uriTemplate,
            title: shortText(t.title, 200),
            description: shortText(t.description),
            mimeType: shortText(t.mimeType, 100),
            variables: templateVariables(uriTemplate),
          },
        ];
      }),
    };
  });
}

export async function readResource(
  deps: ConnectDeps,
  server: McpServerConfig,
  caller: CallerIdentity,
  uri: string,
): Promise<Fetched<ResourceContents[]>> {
  return withServer(deps, server, caller, `read ${uri}`, async (client, request) => {
    return resourceContentsOf(await client.readResource({ uri }, request), uri);
  });
}

/** A `resources/read` result's contents as we keep them: typed fields only, anything else dropped. */
export function resourceContentsOf(result: { contents?: unknown }, uri: string): ResourceContents[] {
  return (Array.isArray(result.contents) ? result.contents : []).flatMap((c): ResourceContents[] => {
    if (!c || typeof c !== 'object') return [];
    const item = c as Record<string, unknown>;
    return [
      {
        uri: typeof item.uri === 'string' ? item.uri : uri,
        ...(typeof item.mimeType === 'string' && { mimeType: item.mimeType }),
        ...(typeof item.text === 'string' && { text: item.text }),
        ...(typeof item.blob === 'string' && { blob: item.blob }),
        ...(item._meta !== null &&
          typeof item._meta === 'object' &&
          !Array.isArray(item._meta) && { meta: item._meta as Record<string, unknown> }),
      },
    ];
  });
}
