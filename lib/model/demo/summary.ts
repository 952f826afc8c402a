import { SUMMARY_REQUEST, TRANSCRIPT_MARKS } from '../summaries';
import type { DemoReply, DemoRequest, RequestMessage } from './types';
import { splitWords } from './words';

// The demo model asked to summarize the oldest part of a conversation (lib/model/summaries.ts):
// a deterministic summary built from the transcript it is given — the summary before it, kept,
// then each thing the person asked, in order, and how many tool calls there were — cut to the
// request's max_tokens (one token per word) like every demo answer.

export function isSummaryRequest(request: DemoRequest): boolean {
  return Boolean(request.system?.startsWith(SUMMARY_REQUEST));
}

export function summaryReply(request: DemoRequest): DemoReply {
  const transcript = request.messages.map(textOf).join('\n');
  const lines = transcript.split('\n');
  const earlier = lines
    .find((l) => l.startsWith(TRANSCRIPT_MARKS.earlier))
    ?.slice(TRANSCRIPT_MARKS.earlier.length)
    .trim();
  const asked = lines.filter((l) => l.startsWith(TRANSCRIPT_MARKS.person)).map((l) => quote(l.slice(TRANSCRIPT_MARKS.person.length)));
  const calls = lines.filter((l) => l.startsWith('(The assistant called ')).length;
  const text = [
    earlier ? `${earlier}\n` : '',
    `Then the person asked ${asked.length} time${asked.length === 1 ? '' : 's'}: ${asked.join('; ') || '(nothing)'}. `,
    `The assistant answered and made ${calls} tool call${calls === 1 ? '' : 's'}.`,
  ].join('');
  const words = splitWords(text);
  const cut = words.length > request.max_tokens;
  return {
    blocks: [{ type: 'text', text: (cut ? words.slice(0, request.max_tokens) : words).join('').trimEnd() }],
    stopReason: cut ? 'max_tokens' : 'end_turn',
    failMidstream: false,
  };
}

function quote(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return `“${flat.length > 60 ? `${flat.slice(0, 59)}…` : flat}”`;
}

function textOf(m: RequestMessage): string {
  if (typeof m.content === 'string') return m.content;
  return m.content.map((b) => (typeof b.text === 'string' ? b.text : '')).join('\n');
}
