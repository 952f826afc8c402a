import { getToolCall, getToolCallForUser, updateToolCallIfVersion, type ToolCallRow } from '@/db/queries/tool-calls';
import type { InputResponse, StoredInputRequests } from '@/db/stored-json';
import { inputProblem } from '@/lib/mcp/schema-guard';

import { argsHash } from './args-hash';
import { DecisionError, resumeIfSettled } from './decide';
import type { EngineDeps } from './deps';
import { toToolCallView } from './tool-call-view';

export type { InputResponse };

/**
 * A person's answer to a server's elicitation (`input_required`). The answers are checked
 * against what the server asked, stored with the call, and the call is run again with them and
 * the server's exact request state; the run resumes once no call of its step waits for input.
 *
 * An answer is bound to the round it answers (`round`: the call's version while it waited, as
 * `ToolCallView.inputRound` showed it). A server may ask again — a link's step not finished yet
 * asks the same question — so a click sent for an earlier round (a second tab, a page not yet
 * updated) would otherwise answer the new one, running the call again for a step the person
 * never confirmed: it is refused in words instead. The same answer to the same round, sent twice,
 * is one answer. An answer without a round is taken only where no earlier question could be meant
 * (`isRoundBound`); it is stored with the round it answered.
 */
export async function answerInput(
  deps: EngineDeps,
  a: { userId: string; toolCallId: string; responses: Record<string, InputResponse>; round?: number },
): Promise<{ toolCall: ToolCallRow; resumed: boolean }> {
  let call = await getToolCallForUser(deps.db, a.userId, a.toolCallId);
  if (!call) throw new DecisionError('not_found', `No tool call with id "${a.toolCallId}".`);
  for (let attempt = 0; attempt < 3; attempt++) {
    if (call.status === 'awaiting_input' && a.round === undefined && isRoundBound(call)) {
      throw new DecisionError(
        'conflict',
        `round: ${call.modelName} has asked more than once; say which question this answers (the card's inputRound). ` +
          'Reload to see the question the card shows now.',
        'round',
      );
    }
    if (call.status === 'awaiting_input' && a.round !== undefined && call.version !== a.round) {
      throw new DecisionError(
        'conflict',
        `round: this answer is for an earlier question of ${call.modelName}; the server has asked again since. ` +
          'Answer the question the card shows now.',
        'round',
      );
    }
    if (call.status !== 'awaiting_input') {
      const previous = call.inputResponses;
      const sameRound = a.round === undefined || previous?.round === a.round;
      if (previous && sameRound && argsHash(previous.responses) === argsHash(a.responses)) return { toolCall: call, resumed: false };
      throw new DecisionError('conflict', `This call is not waiting for input (${call.status}).`);
    }
    checkResponses(call.inputRequests ?? {}, a.responses);
    const answered = await updateToolCallIfVersion(deps.db, call.id, call.version, {
      status: 'approved',
      inputResponses: { v: 1, responses: a.responses, by: a.userId, at: new Date().toISOString(), round: call.version },
    });
    if (!answered) {
      call = (await getToolCall(deps.db, call.id))!;
      continue;
    }
    await deps.events.persist(answered.conversationId, answered.runId, 'tool_call.decided', { toolCall: toToolCallView(answered) });
    return { toolCall: answered, resumed: await resumeIfSettled(deps, answered) };
  }
  throw new DecisionError('conflict', 'This call is being answered elsewhere. Reload and try again.');
}

/**
 * Whether an answer to this waiting call must name its round. Not when the question cannot be
 * confused with another: none was answered before it (its first), or the one before was answered
 * before answers named rounds — a question asked before the upgrade, whose card (loaded from its
 * stored event) may carry no round, and which would otherwise never be answerable.
 */
function isRoundBound(call: ToolCallRow): boolean {
  return call.inputResponses !== null && call.inputResponses.round !== undefined;
}

function checkResponses(requests: StoredInputRequests, responses: Record<string, InputResponse>): void {
  const asked = Object.keys(requests).sort();
  const given = Object.keys(responses).sort();
  const missing = asked.filter((k) => !given.includes(k));
  const extra = given.filter((k) => !asked.includes(k));
  if (missing.length)
    throw new DecisionError(
      'invalid',
      `responses: an answer for "${missing[0]}" is missing (asked: ${asked.join(', ')}).`,
      `responses.${missing[0]}`,
    );
  if (extra.length)
    throw new DecisionError('invalid', `responses: "${extra[0]}" was not asked (asked: ${asked.join(', ')}).`, `responses.${extra[0]}`);
  for (const key of asked) {
    const r = responses[key]!;
    const schema = requests[key]!.params?.requestedSchema;
    // A link's step happens on the server's page: "accept" says the person finished it, nothing more.
    if (requests[key]!.params?.mode === 'url' && r.content !== undefined)
      throw new DecisionError('invalid', `responses.${key}.content: a link's answer carries no content.`, `responses.${key}.content`);
    if (r.action === 'accept' && schema && requests[key]!.params?.mode !== 'url') {
      const problem = inputProblem(schema, r.content ?? {});
      if (problem) throw new DecisionError('invalid', `responses.${key}.content: ${problem}`, `responses.${key}.content`);
    }
  }
}
