import type { ToolCallStatus } from '@/db/vocabulary';

import type { ConversationExport, ExportedMessage, ExportedToolCall } from './export';

/**
 * The export document as Markdown to read: the title and date, then each message under its
 * author, its text exactly as written, and each tool call as a short block — which server and
 * tool, the arguments as JSON, the outcome and what the tool answered (cut where the document
 * cut it, and said so).
 */
export function exportMarkdown(doc: ConversationExport): string {
  const c = doc.conversation;
  const lines: string[] = [`# ${oneLine(c.title)}`, ''];
  lines.push(`Started ${dateWords(c.createdAt)} · last changed ${dateWords(c.updatedAt)} · model ${c.model}`);
  if (c.forkedFrom)
    lines.push(
      '',
      `Continued from the shared conversation “${oneLine(c.forkedFrom.title)}” (as of ${dateWords(c.forkedFrom.snapshotAt)}).`,
    );
  lines.push('', `Exported from Switchboard on ${dateWords(doc.exportedAt)}.`);
  for (const m of doc.messages) lines.push('', '---', '', ...messageLines(m));
  return `${lines.join('\n').trimEnd()}\n`;
}

export const STATUS_WORDS: Record<ToolCallStatus, string> = {
  proposed: 'proposed, never decided',
  pending_approval: 'waiting for approval',
  approved: 'approved',
  auto_approved: 'allowed automatically',
  denied: 'denied',
  rejected: 'not run',
  executing: 'running',
  awaiting_input: 'waiting for an answer',
  awaiting_sign_in: 'waiting for a sign-in',
  succeeded: 'done',
  errored: 'failed',
  timed_out: 'timed out',
  unknown: 'outcome unknown',
  cancelled: 'cancelled',
};

const STOP_WORDS: Record<string, string> = {
  max_tokens: 'The answer reached the length limit and was cut short.',
  cancelled: 'Stopped.',
  refusal: 'The model declined to continue this answer.',
  max_steps: 'The turn reached its step limit.',
};

function messageLines(m: ExportedMessage): string[] {
  const who = m.viewContext ? 'Interactive views' : m.role === 'user' ? 'You' : 'Assistant';
  const out = [`## ${who} · ${dateWords(m.createdAt)}`, ''];
  if (m.viewContext) out.push(`*Shared with the model by ${m.viewContext.map((v) => `${v.server}’s ${v.tool}`).join(', ')}*`, '');
  if (m.prompt) out.push(`*From ${m.prompt.server}: prompt “${m.prompt.name}”*`, '');
  for (const a of m.attachments ?? []) {
    const size = a.chars !== undefined ? ` · ${a.chars.toLocaleString('en')} characters` : '';
    out.push(`- Attached \`${a.uri}\` from ${a.server}${size}${a.truncated ? ' (the model read the first part)' : ''}`);
  }
  if (m.attachments?.length) out.push('');
  for (const part of m.parts) {
    // A view's words are the server's, fenced like a tool's result: never read as a section of the export.
    if (part.type === 'text' && m.viewContext) out.push(...fenced(part.text, ''), '');
    else if (part.type === 'text') out.push(part.text, '');
    else if (part.type === 'thinking')
      out.push(...quote(part.redacted ? '*Thinking (hidden by the model provider)*' : `*Thinking*\n\n${part.text ?? ''}`), '');
    else out.push(...toolCallLines(part.call), '');
  }
  if (m.stopReason && STOP_WORDS[m.stopReason]) out.push(`*${STOP_WORDS[m.stopReason]}*`, '');
  return out;
}

function toolCallLines(call: ExportedToolCall): string[] {
  const name = call.server && call.tool ? `${call.server} · ${call.tool}` : call.name;
  const out = [`**Tool call: ${name}** — ${STATUS_WORDS[call.status]}`];
  if (call.reason) out.push('', `Why: ${oneLine(call.reason)}`);
  out.push('', 'Arguments:', '', ...fenced(JSON.stringify(call.arguments, null, 2), 'json'));
  const r = call.result;
  if (r) {
    out.push('', r.isError ? 'Result (an error):' : 'Result:', '');
    if (r.text) out.push(...fenced(r.text, ''));
    else out.push('*(no text)*');
    for (const image of r.images) out.push('', `*An image (${image}), not included in this export.*`);
    if (r.cut) out.push('', `*Cut here: the first ${r.text.length.toLocaleString('en')} of ${r.chars.toLocaleString('en')} characters.*`);
    if (r.modelGotPart) out.push('', '*The model got only the first part of this result.*');
  }
  return out;
}

/** A fenced block whose fence is longer than any run of backticks in the text, so it cannot end early. */
function fenced(text: string, lang: string): string[] {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return [`${fence}${lang}`, text, fence];
}

function quote(text: string): string[] {
  return text.split('\n').map((line) => (line ? `> ${line}` : '>'));
}

/** Titles and reasons on one line (a heading or a sentence). */
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** "2026-12-04 18:05 UTC": the same for every reader, whatever their time zone. */
function dateWords(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}
