import http from 'node:http';
import type { AddressInfo } from 'node:net';

import type { ReplyBlock } from '@/lib/model/demo/types';
import { encodeEvent, toMessage, toStreamEvents } from '@/lib/model/demo/wire';

/**
 * The bench's Anthropic-compatible model on 127.0.0.1, built on the same wire encoding as
 * test/fixtures/scripted-model.ts (lib/model/demo/wire.ts), but answering an endless stream of
 * concurrent turns instead of a fixed queue: what it answers is read from the request itself, and
 * it stamps (on this process's clock, the one the client also reads) when each call arrived, when
 * its first text delta was written and when it ended, so the host's own time can be taken apart
 * from the model's.
 *
 * A turn's user text says what to do: it contains `[bench:<turnId>:plain]` (answer with text) or
 * `[bench:<turnId>:tool]` (call `notes__search`, then answer with text once the result is back).
 */

export interface ModelCall {
  receivedAt: number;
  firstDeltaAt: number | null;
  endedAt: number;
}

export interface ModelShape {
  /** Words of the text answer (one word is one streamed delta and one output token). */
  answerWords: number;
  /** Words of text the tool step says before its tool_use block. */
  leadWords: number;
  /** Pause between streamed words, ms (0: the whole answer in one write, a model as fast as can be). */
  wordDelayMs: number;
}

export interface BenchModel {
  url: string;
  /** The calls made for a turn, in order. */
  callsOf(turnId: string): ModelCall[];
  /** Calls no turn marker could be found in, or that asked for a tool the host did not offer. */
  problems: string[];
  forget(turnId: string): void;
  close(): Promise<void>;
}

const MARKER = /\[bench:([\w-]+):(plain|tool)\]/;
const TOOL = 'notes__search';

type Block = { type: string; text?: string; content?: unknown };
type Message = { role: string; content: string | Block[] };

function lastUserText(messages: Message[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== 'user') continue;
    if (typeof m.content === 'string') return m.content;
    const text = m.content.find((b) => b.type === 'text')?.text;
    if (text) return text;
  }
  return '';
}

function endsWithToolResult(messages: Message[]): boolean {
  const last = messages.at(-1);
  return !!last && Array.isArray(last.content) && last.content.some((b) => b.type === 'tool_result');
}

export function words(count: number, seed: string): string {
  return Array.from({ length: count }, (_, i) => `w${seed}${i}`).join(' ');
}

export async function startBenchModel(shape: ModelShape): Promise<BenchModel> {
  const calls = new Map<string, ModelCall[]>();
  const problems: string[] = [];
  let ids = 0;

  function reply(body: { messages: Message[]; tools?: { name: string }[] }, turnId: string, kind: string): ReplyBlock[] {
    const answer: ReplyBlock = { type: 'text', text: words(shape.answerWords, turnId.slice(0, 4)) };
    if (kind === 'plain' || endsWithToolResult(body.messages)) return [answer];
    if (!body.tools?.some((t) => t.name === TOOL)) {
      problems.push(`turn ${turnId}: ${TOOL} was not offered`);
      return [answer];
    }
    const lead: ReplyBlock[] = shape.leadWords > 0 ? [{ type: 'text', text: words(shape.leadWords, 'lead') }] : [];
    return [...lead, { type: 'tool_use', id: `toolu_bench_${++ids}`, name: TOOL, input: { query: 'bench' } }];
  }

  const server = http.createServer((req, res) => {
    const receivedAt = performance.now();
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      // Only the Messages API is scripted (the app may also ask for e.g. the list of models).
      if (req.method !== 'POST' || !req.url?.startsWith('/v1/messages')) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: `the bench model has no ${req.url}` } }));
        return;
      }
      void answer(raw, receivedAt, res);
    });
  });

  async function answer(raw: string, receivedAt: number, res: http.ServerResponse) {
    const body = JSON.parse(raw) as { messages: Message[]; tools?: { name: string }[]; stream?: boolean; model: string };
    const meta = { id: `msg_bench_${++ids}`, model: body.model, inputTokens: 10 };
    if (!body.stream) {
      // A title request (the app asks for one on a conversation's first turn when it has none).
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify(toMessage({ blocks: [{ type: 'text', text: 'Bench title' }], stopReason: 'end_turn', failMidstream: false }, meta)),
      );
      return;
    }
    const marker = MARKER.exec(lastUserText(body.messages));
    if (!marker) problems.push('a streamed call without a [bench:…] marker');
    const turnId = marker?.[1] ?? 'unmarked';
    const blocks = reply(body, turnId, marker?.[2] ?? 'plain');
    const call: ModelCall = { receivedAt, firstDeltaAt: null, endedAt: 0 };
    const stopReason = blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn';
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    for (const e of toStreamEvents({ blocks, stopReason, failMidstream: false }, meta)) {
      if ('fail' in e) break;
      if (e.pause && shape.wordDelayMs > 0) await new Promise((r) => setTimeout(r, shape.wordDelayMs));
      res.write(encodeEvent(e));
      const delta = e.event === 'content_block_delta' ? (e.data as { delta: { type: string } }).delta : null;
      if (call.firstDeltaAt === null && delta?.type === 'text_delta') call.firstDeltaAt = performance.now();
    }
    res.end();
    call.endedAt = performance.now();
    const list = calls.get(turnId) ?? [];
    list.push(call);
    calls.set(turnId, list);
  }

  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    callsOf: (turnId) => calls.get(turnId) ?? [],
    forget: (turnId) => void calls.delete(turnId),
    problems,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
