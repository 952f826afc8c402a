import { startsTurn } from '@/lib/chat/path-page';

import type { MessageView } from '../types';
import type { MessageBranching } from './message-actions';

/** What the conversation page does for the branch controls; each answers with an error to show, or null. */
export interface BranchActions {
  /** Sends `text` in place of this message of the person's: a new branch from the message before it. */
  edit(messageId: string, text: string): Promise<string | null>;
  /** Asks for another answer beside this one (a new version of its turn). */
  regenerate(messageId: string): Promise<string | null>;
  /** Shows the version before or after this message. */
  step(messageId: string, direction: -1 | 1): Promise<string | null>;
  /** Shows the newest branch beneath this message (its answers kept elsewhere: `answersElsewhere`). */
  showBeneath(messageId: string): Promise<string | null>;
}

/** The id of a message's Edit button (focus returns to it when its editor is cancelled). */
export const editButtonId = (messageId: string) => `edit-${messageId}`;

/** The text the person wrote in a message (what its editor starts with). */
export function textOfMessage(m: Pick<MessageView, 'content'>): string {
  const blocks: unknown[] = Array.isArray(m.content) ? m.content : [];
  return blocks
    .flatMap((b) => (b && typeof b === 'object' && 'type' in b && b.type === 'text' && 'text' in b ? [String(b.text)] : []))
    .join('\n');
}

/**
 * The branch controls of each message on the active path: a switcher where the message has
 * siblings (an edit of it, another answer in its place), Edit on the person's own typed messages,
 * Regenerate on each answer's last message (the one with Copy), which redoes the whole turn from
 * its first answer. Nothing on the turn still running — it has no final answer yet.
 */
export function branchingFor(
  messages: MessageView[],
  opts: { activeRunId: string | undefined; blockedReason: string | null; actions: BranchActions; openEditor: (id: string) => void },
): Map<string, MessageBranching> {
  const { actions, blockedReason } = opts;
  const byId = new Map<string, MessageBranching>();
  // The first answer of the turn being walked: regenerating from it redoes the whole turn.
  let turnAnswer: string | null = null;
  messages.forEach((m, i) => {
    if (m.role === 'assistant' && (i === 0 || startsTurn(messages[i - 1]!))) turnAnswer = m.id;
    const firstAnswer = turnAnswer;
    const live = m.runId !== null && m.runId === opts.activeRunId;
    const typed = m.role === 'user' && !m.origin && textOfMessage(m) !== '';
    const next = messages[i + 1];
    const endsAnswer = m.role === 'assistant' && !live && (!next || startsTurn(next));
    byId.set(m.id, {
      version: versionOf(m),
      blockedReason,
      onStep: (direction) => actions.step(m.id, direction),
      ...(typed && { onEdit: () => opts.openEditor(m.id), editButtonId: editButtonId(m.id) }),
      ...(endsAnswer && firstAnswer && { onRegenerate: () => actions.regenerate(firstAnswer) }),
    });
  });
  return byId;
}

/** The message's place among its siblings, as the conversation's view gives it; null when it has none. */
function versionOf(m: MessageView): { position: number; count: number } | null {
  return m.branch && m.branch.count > 1 ? { position: m.branch.index + 1, count: m.branch.count } : null;
}

/** The sibling a step from this message shows, or null past either end. */
export function siblingAt(m: Pick<MessageView, 'branch'>, direction: -1 | 1): string | null {
  return m.branch?.siblingIds[m.branch.index + direction] ?? null;
}
