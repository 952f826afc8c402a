'use client';

import { Fragment, memo, useCallback, useMemo } from 'react';

import { ApprovalCard, type DecisionExtras, type DecisionKind } from './approval-card';
import type { ChatState } from './chat-state';
import { InputCard, type InputResponses } from './input-card';
import { MessageItem } from './message-item';
import { SignInCard } from './sign-in-card';
import { ToolCallCard } from './tool-call-card';
import { TurnTimeline } from './turn-timeline';
import type { MessageView, ToolCallView } from './types';

/** What the cards can do; the same object for the page's whole life, so the list stays memoized. */
export interface CardActions {
  decide(call: ToolCallView, decision: DecisionKind, extras?: DecisionExtras): Promise<void>;
  answer(call: ToolCallView, responses: InputResponses): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The stored messages with their tool cards and each finished turn's timeline. Memoized: a
 * streamed delta changes only the page's partial text, so a long conversation is not drawn again
 * for every word (`npm run bench:ui` measures it).
 */
export const MessageList = memo(function MessageList({
  messages,
  toolCalls,
  progress,
  activeRunId,
  actions,
}: {
  messages: MessageView[];
  toolCalls: ChatState['toolCalls'];
  progress: ChatState['progress'];
  activeRunId: string | undefined;
  actions: CardActions;
}) {
  // A finished turn's timeline sits under its last message; the live turn has its cards. The
  // calls are grouped again only when a call changed, so each timeline keeps its (memoized) props.
  const callsByRun = useMemo(() => groupByRun(toolCalls), [toolCalls]);
  const turnEnds = useMemo(() => lastMessageOfEachTurn(messages, callsByRun, activeRunId), [messages, callsByRun, activeRunId]);
  // Stable while no call changes: an appended message then redraws nothing above it.
  const renderToolCall = useCallback(
    (toolUseId: string) => {
      const call = toolCalls[toolUseId];
      if (!call) return null;
      if (call.status === 'pending_approval') return <ApprovalCard call={call} onDecide={actions.decide} onStop={actions.stop} />;
      if (call.status === 'awaiting_input') return <InputCard call={call} onAnswer={actions.answer} />;
      if (call.status === 'awaiting_sign_in') return <SignInCard call={call} onStop={actions.stop} />;
      return <ToolCallCard call={call} progress={progress[call.id]} />;
    },
    [toolCalls, progress, actions],
  );
  return messages.map((m) => (
    <Fragment key={m.id}>
      <MessageItem role={m.role} content={m.content} stopReason={m.stopReason} renderToolCall={renderToolCall} />
      {m.runId && turnEnds.get(m.runId) === m.id && <TurnTimeline calls={callsByRun.get(m.runId) ?? []} />}
    </Fragment>
  ));
});

function groupByRun(toolCalls: Record<string, ToolCallView>): Map<string, ToolCallView[]> {
  const callsByRun = new Map<string, ToolCallView[]>();
  for (const c of Object.values(toolCalls)) callsByRun.set(c.runId, [...(callsByRun.get(c.runId) ?? []), c]);
  return callsByRun;
}

/** For each finished run with tool calls, the id of its last message. */
function lastMessageOfEachTurn(messages: MessageView[], callsByRun: Map<string, ToolCallView[]>, activeRunId: string | undefined) {
  const turnEnds = new Map<string, string>();
  for (const m of messages) if (m.runId && m.runId !== activeRunId && callsByRun.has(m.runId)) turnEnds.set(m.runId, m.id);
  return turnEnds;
}
