import type { ConnectDeps } from './connection';
import { shortText, withServer, type Fetched } from './server-content';
import type { CallerIdentity, McpServerConfig } from './types';

/**
 * A server's prompts (MCP `prompts/list`, `prompts/get`): templates the person picks from the
 * composer's `/` menu. Listing says what each takes; getting renders it into messages, which
 * lib/chat/compose.ts turns into the conversation's own. Failures are data (./server-content.ts).
 */

export const MAX_PROMPTS_PER_SERVER = 100;
export const MAX_PROMPT_ARGUMENTS = 20;
/** An argument's value, as typed into the composer's small form. */
export const MAX_PROMPT_ARGUMENT_CHARS = 10_000;

export interface PromptArgumentInfo {
  name: string;
  description?: string;
  required: boolean;
}

export interface PromptInfo {
  name: string;
  title?: string;
  description?: string;
  arguments: PromptArgumentInfo[];
}

/** One message of a rendered prompt: its role and its one MCP content block, as the server sent it. */
export interface PromptMessage {
  role: 'user' | 'assistant';
  content: Record<string, unknown>;
}

export interface RenderedPrompt {
  description?: string;
  messages: PromptMessage[];
}

export async function listPrompts(deps: ConnectDeps, server: McpServerConfig, caller: CallerIdentity): Promise<Fetched<PromptInfo[]>> {
  return withServer(deps, server, caller, 'list its prompts', async (client, request) => {
    if (!client.getServerCapabilities()?.prompts) return [];
    const { prompts } = await client.listPrompts(undefined, request);
    return prompts.slice(0, MAX_PROMPTS_PER_SERVER).flatMap((p): PromptInfo[] => {
      const name = shortText(p.name, 200);
      if (!name) return [];
      const args = (Array.isArray(p.arguments) ? p.arguments : []).slice(0, MAX_PROMPT_ARGUMENTS).flatMap((a) => {
        const argName = shortText(a?.name, 100);
        return argName ? [{ name: argName, description: shortText(a.description), required: a.required === true }] : [];
      });
      return [{ name, title: shortText(p.title, 200), description: shortText(p.description), arguments: args }];
    });
  });
}

export async function getPrompt(
  deps: ConnectDeps,
  server: McpServerConfig,
  caller: CallerIdentity,
  name: string,
  args: Record<string, string>,
): Promise<Fetched<RenderedPrompt>> {
  return withServer(deps, server, caller, `render the prompt "${name}"`, async (client, request) => {
    const result = await client.getPrompt({ name, arguments: args }, request);
    const messages = (Array.isArray(result.messages) ? result.messages : []).flatMap((m): PromptMessage[] =>
      (m.role === 'user' || m.role === 'assistant') && m.content && typeof m.content === 'object'
        ? [{ role: m.role, content: m.content as unknown as Record<string, unknown> }]
        : [],
    );
    return { description: shortText(result.description), messages };
  });
}

/**
 * What is wrong with the arguments sent for a prompt, naming the field, or null: a required one
 * missing or empty, one the prompt does not take, a value too long.
 */
export function promptArgumentProblem(prompt: PromptInfo, args: Record<string, string>): { field: string; message: string } | null {
  const takes = new Set(prompt.arguments.map((a) => a.name));
  for (const [name, value] of Object.entries(args)) {
    const field = `prompt.arguments.${name}`;
    if (!takes.has(name)) {
      const list = prompt.arguments.length ? `it takes ${prompt.arguments.map((a) => `"${a.name}"`).join(', ')}` : 'it takes none';
      return { field, message: `${field}: the prompt "${prompt.name}" takes no argument "${name}" (${list})` };
    }
    if (value.length > MAX_PROMPT_ARGUMENT_CHARS) {
      const most = MAX_PROMPT_ARGUMENT_CHARS.toLocaleString('en');
      return { field, message: `${field}: at most ${most} characters (got ${value.length.toLocaleString('en')})` };
    }
  }
  for (const a of prompt.arguments) {
    if (a.required && !args[a.name]?.trim()) {
      const field = `prompt.arguments.${a.name}`;
      return { field, message: `${field}: the prompt "${prompt.name}" needs it${a.description ? ` (${a.description})` : ''}` };
    }
  }
  return null;
}
