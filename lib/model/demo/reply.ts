import { CONTINUE_PROMPT } from '../continuation';
import { TITLE_REQUEST } from '../titles';
import { describeDocuments } from './documents';
import { describeFiles } from './files';
import { historyEcho } from './history-echo';
import { instructionsAck } from './instructions-ack';
import { argsFromSchema } from './schema-args';
import { isSummaryRequest, summaryReply } from './summary';
import { findToolMentions } from './tool-mentions';
import { describeToolResults, toolResultBlocks } from './tool-results';
import { callFound, SEARCH_TOOLS_NAME, searchFirst } from './tool-search';
import type { DemoReply, DemoRequest, ReplyBlock, ReplyThinkingBlock, ReplyToolUseBlock, RequestMessage } from './types';
import { countWords, splitWords } from './words';

// Decides what the demo model says: a pure function from the request to
// content blocks and a stop reason (ids come from an injectable generator).
// The rules are a contract hosts and tests build on — see lib/model/demo/index.ts.

/** Up to six words of the first line with words (code blocks and Markdown marks left out), capitalised. */
export function titleFrom(text: string): string {
  const line = text
    .replace(/^```[\s\S]*?^```[ \t]*$/gm, '')
    .split('\n')
    .map((l) =>
      l
        .replace(/[^\p{L}\p{N}'’_\s-]/gu, ' ')
        .replace(/(^|\s)_+|_+(?=\s|$)/g, '$1')
        .trim(),
    )
    .find((l) => /[\p{L}\p{N}]/u.test(l));
  const words = (line ?? 'New conversation').split(/\s+/).slice(0, 6).join(' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** Test hooks in the last user text. */
export const FAIL_MIDSTREAM_TRIGGER = '[demo:fail-midstream]';
export const OVERLOADED_TRIGGER = '[demo:overloaded]';
/** `[demo:cut-at=N]`: a new answer stops after N words with `max_tokens`, as if that were the request's limit. */
export const CUT_AT_TRIGGER = /\[demo:cut-at=(\d+)\]/;

export type ReplyOptions = {
  /** Makes tool_use ids; `n` counts from 1 within one reply. */
  newToolUseId?: (n: number) => string;
  /** The files the last user message carried, in words (./files.ts: reading a PDF's pages is async). */
  files?: string[];
};

/**
 * With extended thinking asked for, the reply starts with a short thinking block saying what the
 * demo is about to do, signed (a deterministic stand-in for the API's signature, which a host
 * must send back unchanged with the block). Title requests think nothing.
 */
export function decideReply(request: DemoRequest, options: ReplyOptions = {}): DemoReply {
  if (isSummaryRequest(request)) return summaryReply(request);
  const continued = !request.system?.startsWith(TITLE_REQUEST) && continuationOf(request, options);
  const reply = continued || decideContent(withCut(request), options);
  if (!request.thinking || request.system?.startsWith(TITLE_REQUEST)) return reply;
  return { ...reply, blocks: [thinkingAbout(request, reply, Boolean(continued)), ...reply.blocks] };
}

/** A new answer asked to stop early (`[demo:cut-at=N]`): the request's limit lowered to N. */
function withCut(request: DemoRequest): DemoRequest {
  const cut = CUT_AT_TRIGGER.exec(lastUserText(request.messages));
  return cut ? { ...request, max_tokens: Math.min(request.max_tokens, Math.max(1, Number(cut[1]))) } : request;
}

/**
 * Asked to go on with a cut answer — the history ends with it (prefill), or with CONTINUE_PROMPT
 * right after it — the demo gives the rest of the answer it would have given to the question
 * before it: the words after those already written (a space first after a prefill, which ends
 * trimmed). Not cut again by the trigger; the request's own `max_tokens` still holds.
 */
function continuationOf(request: DemoRequest, options: ReplyOptions): DemoReply | null {
  const { messages } = request;
  const prefill = messages.at(-1)?.role === 'assistant';
  const prompted = !prefill && lastUserText(messages).trim() === CONTINUE_PROMPT && messages.at(-2)?.role === 'assistant';
  if (!prefill && !prompted) return null;
  const cut = messages.at(prefill ? -1 : -2)!;
  const written = textOf(cut);
  if (!written.trim()) return null;
  const question = messages.slice(0, prefill ? -1 : -2);
  const whole = decideContent({ ...request, messages: question, max_tokens: Number.MAX_SAFE_INTEGER }, options).blocks;
  const full = whole.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n\n');
  const words = splitWords(full);
  const count = countWords(written);
  const same = words.slice(0, count).join('').replace(/\s+/g, ' ').trim() === written.replace(/\s+/g, ' ').trim();
  const rest = same ? words.slice(count).join('').trim() : '';
  const text = rest || '(That was the whole answer.)';
  return limitToMaxTokens(
    { blocks: [textBlock(prefill ? ` ${text}` : text)], stopReason: 'end_turn', failMidstream: false },
    request.max_tokens,
  );
}

function textOf(message: RequestMessage): string {
  if (typeof message.content === 'string') return message.content;
  return message.content.flatMap((b) => (b.type === 'text' && typeof b.text === 'string' ? [b.text] : [])).join('\n\n');
}

function thinkingAbout(request: DemoRequest, reply: DemoReply, continued: boolean): ReplyThinkingBlock {
  const asked = lastUserText(request.messages).replace(/\s+/g, ' ').trim();
  const quoted = asked.length > 80 ? `${asked.slice(0, 80).trimEnd()}…` : asked;
  const calls = reply.blocks.flatMap((b) => (b.type === 'tool_use' ? [b.name] : []));
  const plan = continued
    ? 'My answer was cut at the length limit; I will go on from where it stopped.'
    : toolResultBlocks(request.messages.at(-1)).length
      ? 'The tool results are in; I will quote each of them.'
      : calls.length
        ? `I will call ${joinNames(calls)}.`
        : 'No tool was named, so I will answer briefly and list the tools I was offered.';
  const thinking = `The person wrote: “${quoted}”. ${plan}`;
  return { type: 'thinking', thinking, signature: `demo-signature-${Buffer.from(thinking).toString('base64url').slice(0, 40)}` };
}

function decideContent(request: DemoRequest, options: ReplyOptions): DemoReply {
  const newId = options.newToolUseId ?? randomToolUseId;
  const { messages, tools } = request;
  const last = messages.at(-1);
  const userText = lastUserText(messages);
  const failMidstream = userText.includes(FAIL_MIDSTREAM_TRIGGER);

  // Asked for a conversation title: a few words of the message, nothing else.
  if (request.system?.startsWith(TITLE_REQUEST)) {
    return { blocks: [textBlock(titleFrom(userText))], stopReason: 'end_turn', failMidstream: false };
  }

  // After tool results: quote them and stop. The one exception: after searching for tools the
  // person named, call those the search made available (their results are then quoted).
  const results = toolResultBlocks(last);
  if (results.length > 0) {
    const found = callFound(messages, tools, newId);
    if (found) return limitToMaxTokens({ ...found, failMidstream }, request.max_tokens);
    const text = describeToolResults(results, messages.slice(0, -1));
    return limitToMaxTokens({ blocks: [textBlock(text)], stopReason: 'end_turn', failMidstream }, request.max_tokens);
  }

  const mentions = findToolMentions(
    userText,
    tools.map((t) => t.name),
  );
  if (mentions.length > 0) {
    // A named tool that is not offered while a tool search is: search first.
    const search = searchFirst(mentions, tools, newId);
    if (search) return limitToMaxTokens({ ...search, failMidstream }, request.max_tokens);
    const calls: ReplyToolUseBlock[] = mentions.map((mention, i) => {
      const offered = tools.find((t) => t.name === mention.name);
      return {
        type: 'tool_use',
        id: newId(i + 1),
        name: mention.name,
        input: mention.args ?? argsFromSchema(offered?.input_schema),
      };
    });
    const intro = textBlock(`I'll call ${joinNames(calls.map((c) => c.name))}.`);
    return limitToMaxTokens({ blocks: [intro, ...calls], stopReason: 'tool_use', failMidstream }, request.max_tokens);
  }

  const answer =
    describeFiles(options.files ?? [], userText) ??
    describeDocuments(messages, userText) ??
    plainAnswer(
      userText,
      tools.map((t) => t.name),
    );
  // The person's instructions, when the system text carries them, are acknowledged first; the
  // history received, when the person asks for it.
  const text = [instructionsAck(request.system), historyEcho(messages), answer].filter(Boolean).join('\n\n');
  return limitToMaxTokens({ blocks: [textBlock(text)], stopReason: 'end_turn', failMidstream }, request.max_tokens);
}

/** The text of the last user message: its string content or its text blocks. */
export function lastUserText(messages: RequestMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (message.role !== 'user') continue;
    if (typeof message.content === 'string') return message.content;
    return message.content
      .filter((block) => block?.type === 'text' && typeof block.text === 'string')
      .map((block) => block.text)
      .join('\n');
  }
  return '';
}

/** Fenced code blocks of a message, as written (opening fence with its language, body, closing fence). */
function fencedBlocks(text: string): string[] {
  return [...text.matchAll(/^```[^\n`]*\n[\s\S]*?\n```[ \t]*$/gm)].map((m) => m[0]);
}

function plainAnswer(userText: string, toolNames: string[]): string {
  const blocks = fencedBlocks(userText);
  // Code is given back as code (so a page can show it highlighted), not quoted inside a sentence.
  const intro = 'This is the offline demo model: no real AI is answering, so replies are canned.';
  const lines = blocks.length
    ? [`${intro} You wrote ${blocks.length === 1 ? 'a code block' : `${blocks.length} code blocks`}; here it is back:`, '', ...blocks, '']
    : [`${intro} You wrote: "${userText}"`, ''];
  if (toolNames.length === 0) {
    lines.push('No tools were offered to me.');
  } else {
    lines.push('Tools I was offered:', ...toolNames.map((name) => `- ${name}`));
    lines.push('', 'Name one of them (or write `call <name> {json}`) and I will call it.');
    if (toolNames.includes(SEARCH_TOOLS_NAME))
      lines.push('More tools are enabled than listed: name any of them and I will search for it first.');
  }
  return lines.join('\n');
}

/**
 * Each streamed word is one output token. When the text would pass
 * `max_tokens`, it stops there: later blocks (tool calls) are dropped and the
 * stop reason is `max_tokens`, as the real API does.
 */
export function limitToMaxTokens(reply: DemoReply, maxTokens: number): DemoReply {
  let budget = maxTokens;
  const kept: ReplyBlock[] = [];
  for (const block of reply.blocks) {
    if (block.type !== 'text') {
      kept.push(block);
      continue;
    }
    const words = splitWords(block.text);
    if (words.length <= budget) {
      budget -= words.length;
      kept.push(block);
      continue;
    }
    const text = words.slice(0, budget).join('').trimEnd();
    if (text) kept.push(textBlock(text));
    return { ...reply, blocks: kept, stopReason: 'max_tokens' };
  }
  return { ...reply, blocks: kept };
}

function joinNames(names: string[]): string {
  if (names.length <= 1) return names.join('');
  return `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

function textBlock(text: string): ReplyBlock {
  return { type: 'text', text };
}

let idCounter = 0;

/** `toolu_demo_<n>_<random>`: unique across replies, readable in logs. */
function randomToolUseId(n: number): string {
  idCounter = (idCounter + 1) % 1_000_000;
  const random = Math.random().toString(36).slice(2, 10).padEnd(8, '0');
  return `toolu_demo_${n}_${idCounter.toString(36)}${random}`;
}
