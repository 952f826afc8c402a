import type { Db } from '@/db/connection';
import { getConversationTaint } from '@/db/queries/taint';
import type { StoredTaint } from '@/db/stored-json';

/**
 * Why a conversation's auto-approval is narrowed, in words for the tools panel: which server's
 * text the person does not vouch for entered the model's context, what it was, and when. Null:
 * nothing untrusted has entered it, and auto-approval works as the person set it.
 */
export async function conversationTaint(db: Db, conversationId: string): Promise<{ reason: string } | null> {
  const taint = await getConversationTaint(db, conversationId);
  return taint ? { reason: describeTaint(taint) } : null;
}

export const TAINT_CONSEQUENCE =
  'Since then, a tool runs without asking only if a server whose annotations you trust marks it read-only, it reaches no ' +
  'outside systems and it does not read your notes; everything else asks you first.';

export function describeTaint(taint: StoredTaint): string {
  // A tool's description is its definition (trusted with the annotations); everything else is the server's content.
  const server =
    taint.source === 'tool_description'
      ? `the untrusted server "${taint.serverName}"`
      : `the server "${taint.serverName}" (content not trusted)`;
  const tool = taint.tool ? `"${taint.tool}"` : null;
  const what = {
    tool_description: `The description of ${tool ? `the tool ${tool}` : 'a tool'} from ${server} was offered to the model`,
    result: `A result${tool ? ` of ${tool}` : ''} from ${server} entered the conversation`,
    elicitation: `${capitalized(server)} asked a question${tool ? ` while running ${tool}` : ''}`,
    progress: `${capitalized(server)} sent progress messages${tool ? ` while running ${tool}` : ''}`,
    prompt: `The prompt${taint.prompt ? ` "${taint.prompt}"` : ''} of ${server} was put into the conversation`,
    resource: `The resource${taint.uri ? ` ${taint.uri}` : ''} of ${server} was attached to a message`,
    view_context: `The interactive view${tool ? ` of ${tool}` : ''} from ${server} told the model something`,
  }[taint.source];
  return `${what} (${when(taint.at)}). ${TAINT_CONSEQUENCE}`;
}

function capitalized(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** `2026-12-01 10:00 UTC`: the same words on every instance, whatever its time zone. */
function when(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
