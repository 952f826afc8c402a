import { createAnthropic } from '@ai-sdk/anthropic';
import { createMCPClient } from '@ai-sdk/mcp';
import type Anthropic from '@anthropic-ai/sdk';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { stepCountIs, streamText } from 'ai';

import type { Variant } from './stats';

/**
 * The peers the engine's turn is measured against, on the same scripted model and the same
 * loopback MCP server: the minimal loop a person would write by hand with the two SDKs, the
 * Vercel AI SDK's `streamText` with its MCP client, and the floor (the two model calls alone).
 * None of them stores anything. Each keeps one MCP connection for the whole bench, as a
 * long-lived process would; each turn still lists the tools.
 */

const MODEL = 'claude-test';
const PROMPT = 'Echo something, please.';

/** Two bare streamed model calls, no tools: what any turn of two model calls costs at least. */
export function floorVariant(anthropic: Anthropic): Variant<void> {
  return {
    name: 'floor',
    async run() {
      const messages: Anthropic.MessageParam[] = [{ role: 'user', content: PROMPT }];
      const first = await anthropic.messages.stream({ model: MODEL, max_tokens: 1024, messages }).finalMessage();
      messages.push({ role: 'assistant', content: first.content }, { role: 'user', content: 'And again.' });
      await anthropic.messages.stream({ model: MODEL, max_tokens: 1024, messages }).finalMessage();
    },
  };
}

export async function bareMcpClient(url: string): Promise<Client> {
  const client = new Client({ name: 'bench-minimal-loop', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

/** (a) tools listed, model called (`messages.stream`), tool called (MCP v2 client), result returned; no persistence. */
export function minimalLoopVariant(anthropic: Anthropic, mcp: Client): Variant<void> {
  return {
    name: 'minimal loop',
    async run() {
      const { tools } = await mcp.listTools();
      const offered = tools.map((t) => ({
        name: t.name,
        description: t.description ?? '',
        input_schema: t.inputSchema as Anthropic.Tool.InputSchema,
      }));
      const messages: Anthropic.MessageParam[] = [{ role: 'user', content: PROMPT }];
      for (let step = 0; step < 4; step++) {
        const reply = await anthropic.messages.stream({ model: MODEL, max_tokens: 1024, messages, tools: offered }).finalMessage();
        messages.push({ role: 'assistant', content: reply.content });
        const uses = reply.content.filter((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use');
        if (uses.length === 0) return;
        const results = await Promise.all(
          uses.map(async (use): Promise<Anthropic.ToolResultBlockParam> => {
            const result = await mcp.callTool({ name: use.name, arguments: use.input as Record<string, unknown> });
            const text = (result.content as { type: string; text?: string }[])
              .filter((c) => c.type === 'text')
              .map((c) => c.text ?? '')
              .join('\n');
            return { type: 'tool_result', tool_use_id: use.id, content: text, is_error: result.isError === true };
          }),
        );
        messages.push({ role: 'user', content: results });
      }
      throw new Error('the minimal loop did not finish in 4 steps');
    },
  };
}

/** (b) the Vercel AI SDK: `streamText` with `@ai-sdk/anthropic` and the tools of `@ai-sdk/mcp`. */
export async function aiSdkVariant(modelUrl: string, mcpUrl: string): Promise<Variant<void> & { close(): Promise<void> }> {
  const anthropic = createAnthropic({ baseURL: `${modelUrl}/v1`, apiKey: 'bench-key' });
  const mcp = await createMCPClient({ transport: { type: 'http', url: mcpUrl } });
  return {
    name: 'AI SDK',
    async run() {
      const tools = await mcp.tools();
      const result = streamText({
        model: anthropic(MODEL),
        tools,
        prompt: PROMPT,
        maxOutputTokens: 1024,
        stopWhen: stepCountIs(2),
        maxRetries: 0,
      });
      await result.consumeStream();
      const steps = await result.steps;
      const called = steps.flatMap((s) => s.toolResults);
      if (steps.length !== 2 || called.length !== 1) throw new Error(`AI SDK turn: ${steps.length} steps, ${called.length} tool results`);
    },
    close: () => mcp.close(),
  };
}
