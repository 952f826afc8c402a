import { Client, StreamableHTTPClientTransport, type CallToolResult } from '@modelcontextprotocol/client';
import type { AuthInfo, McpHttpHandler } from '@modelcontextprotocol/server';

import { inProcessFetch } from './index';

/**
 * Test-only helpers: a real SDK client reaching a first-party handler the way the app will
 * (StreamableHTTPClientTransport whose fetch calls the handler in-process). Not a *.test.ts file
 * so several suites can share it.
 */
export async function connectInProcess(handler: McpHttpHandler, authInfo: AuthInfo | undefined, url = 'builtin://test') {
  const client = new Client({ name: 'switchboard-test', version: '1.0.0' }, { capabilities: {}, versionNegotiation: { mode: 'auto' } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: inProcessFetch(handler, authInfo) }));
  return client;
}

/** The text of a result's first text block (what a model that ignores structuredContent reads). */
export function textOf(result: CallToolResult): string {
  const block = result.content.find((c) => c.type === 'text');
  return block && 'text' in block ? block.text : '';
}

// Assertions dig into arbitrary result data; a precise type per tool would only restate it.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = Record<string, any>;

/** Calls a tool and returns the result, typed loosely for assertions. */
export async function call(client: Client, name: string, args: Record<string, unknown>) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  return { result, text: textOf(result), data: result.structuredContent as Loose | undefined, isError: result.isError === true };
}
