/**
 * The resource links a tool result carried. lib/mcp/result-parts.ts writes each MCP
 * `resource_link` block into the result as `[resource link: <name> <<uri>>…]`; the page finds
 * them again here to offer "Attach", which reads the resource from the same server.
 */

const LINK = /\[resource link: (.+?) <([^<>\s]+)>/g;

export interface ResourceLinkRef {
  name: string;
  uri: string;
}

export function resourceLinksIn(text: string): ResourceLinkRef[] {
  const out: ResourceLinkRef[] = [];
  for (const m of text.matchAll(LINK)) {
    if (!out.some((l) => l.uri === m[2])) out.push({ name: m[1]!, uri: m[2]! });
  }
  return out;
}
