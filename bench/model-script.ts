import type Anthropic from '@anthropic-ai/sdk';

import { startScriptedModel, type RecordedRequest, type ScriptedReply } from '@/test/fixtures/scripted-model';

/**
 * The scripted Anthropic-compatible model every variant talks to (one HTTP server on 127.0.0.1,
 * answering at once): a request whose last message carries tool results gets a short text; one
 * that offers the benchmark's tool gets a call to it; anything else gets a text. So a tool turn
 * is exactly two model calls, whichever client asks.
 */

/** Tools the model calls, by preference, under the names each variant offers them. */
export const TOOL_PREFERENCE: { name: string; input: Record<string, unknown> }[] = [
  { name: 'fx__echo', input: { message: 'bench' } },
  { name: 'echo', input: { message: 'bench' } },
  { name: 'notes__search', input: { query: 'plans' } },
];

export interface BenchModel {
  url: string;
  client: Anthropic;
  /** Tool results the model was sent that were errors: a variant that fails its call must not look fast. */
  errorResults(): number;
  close(): Promise<void>;
}

type Block = { type: string; is_error?: boolean; content?: unknown };

export async function startBenchModel(choose: (req: RecordedRequest) => ScriptedReply = defaultReply): Promise<BenchModel> {
  let errors = 0;
  const reply = (req: RecordedRequest): ScriptedReply => {
    const last = req.body.messages.at(-1);
    const blocks = Array.isArray(last?.content) ? (last.content as Block[]) : [];
    errors += blocks.filter((b) => b.type === 'tool_result' && b.is_error).length;
    return choose(req);
  };
  // The fixture takes one reply per request from its script; this script never runs out.
  const endless: Parameters<typeof startScriptedModel>[0] = [];
  endless.shift = () => reply;
  const model = await startScriptedModel(endless);
  // It records every request for tests; a bench of thousands of turns keeps only the last few.
  const recorded = model.requests;
  const push = recorded.push.bind(recorded);
  recorded.push = (...items) => {
    if (recorded.length >= 100) recorded.splice(0, 50);
    return push(...items);
  };
  return { url: model.url, client: model.client, errorResults: () => errors, close: model.close };
}

let toolUseCounter = 0;

/** Words the scripted model answers with text only, whatever tools it is offered (an untimed warm-up turn). */
export const WARM_UP_TEXT = 'warm up, no tools';

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  return Array.isArray(content) ? (content as { type: string; text?: string }[]).map((b) => b.text ?? '').join(' ') : '';
}

export function defaultReply(req: RecordedRequest): ScriptedReply {
  const last = req.body.messages.at(-1);
  const blocks = Array.isArray(last?.content) ? (last.content as Block[]) : [];
  if (blocks.some((b) => b.type === 'tool_result')) return { blocks: [{ type: 'text', text: 'Done.' }] };
  if (textOf(last?.content).includes(WARM_UP_TEXT)) return { blocks: [{ type: 'text', text: 'Warm.' }] };
  const offered = new Set((req.body.tools ?? []).map((t) => t.name));
  const tool = TOOL_PREFERENCE.find((t) => offered.has(t.name));
  if (!tool) return { blocks: [{ type: 'text', text: 'Hello.' }] };
  return { blocks: [{ type: 'tool_use', id: `toolu_bench_${++toolUseCounter}`, name: tool.name, input: tool.input }] };
}
