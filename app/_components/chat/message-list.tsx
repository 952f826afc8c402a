'use client';

import { Fragment, memo, useCallback, useMemo, useState } from 'react';

import { branchingFor, editButtonId, textOfMessage, type BranchActions } from '../branches/branching';
import { MessageEditor } from '../branches/message-editor';
import { ownFileHref, type FileHref } from '../files/file-view';
import type { SharedMessageView, SharedToolCallView } from '../share/share-view';
import { ApprovalCard, type DecisionExtras, type DecisionKind } from '../tool-call/approval-card';
import { InputCard, type InputResponses } from '../tool-call/input-card';
import { SignInCard } from '../tool-call/sign-in-card';
import { ToolCallCard } from '../tool-call/tool-call-card';
import type { CardToolCall, MessageView, ToolCallView } from '../types';
import type { ChatState } from './chat-state';
import { MessageItem } from './message-item';
import { SummaryMark } from './summary-mark';
import { TurnTimeline } from './turn-timeline';
import { TurnUsage } from './turn-usage';

/** What the cards can do; the same object for the page's whole life, so the list stays memoized. */
export interface CardActions extends BranchActions {
  decide(call: ToolCallView, decision: DecisionKind, extras?: DecisionExtras): Promise<void>;
  answer(call: ToolCallView, responses: InputResponses): Promise<void>;
  stop(): Promise<void>;
  /** Goes on with the last answer, cut at the length limit. */
  continue(): Promise<void>;
  /** Opens the Tools panel at the tool the model called by this name (a card's "Switch on"). */
  switchOn(modelName: string): void;
}

/** The conversation page: live cards that ask the person (approve, answer, sign in). */
type LiveListProps = {
  readOnly?: false;
  messages: MessageView[];
  /** The first message drawn (`useRevealFromEnd`); the ones before it are not drawn yet. */
  shownFrom?: number;
  toolCalls: ChatState['toolCalls'];
  progress: ChatState['progress'];
  activeRunId: string | undefined;
  /** Why editing, regenerating and switching versions are refused now (a turn is active), or null. */
  branchingBlocked: string | null;
  actions: CardActions;
  /** Where a sent file's bytes are read; the owner's own API unless said otherwise. */
  fileHref?: FileHref;
};

/** A shared page: the same messages and cards, nothing to act on, details as the owner chose. */
type ReadOnlyListProps = {
  readOnly: true;
  messages: SharedMessageView[];
  shownFrom?: number;
  toolCalls: Record<string, SharedToolCallView>;
  /** A shared page reads files through the share's token, never the owner's URL. */
  fileHref?: FileHref;
};

const NO_PROGRESS: ChatState['progress'] = {};

/**
 * The stored messages with their tool cards and each finished turn's timeline. Memoized: a
 * streamed delta changes only the page's partial text, so a long conversation is not drawn again
 * for every word (`npm run bench:ui` measures it).
 */
export const MessageList = memo(function MessageList(props: LiveListProps | ReadOnlyListProps) {
  const messages = props.messages;
  const toolCalls: Record<string, CardToolCall> = props.toolCalls;
  const progress = props.readOnly ? NO_PROGRESS : props.progress;
  const activeRunId = props.readOnly ? undefined : props.activeRunId;
  const actions = props.readOnly ? null : props.actions;
  // A shared page's messages may say how many files the owner kept back.
  const shared = props.readOnly ? props.messages : null;
  // A shared page without a way to read files shows none (the share left them out).
  const fileHref = props.fileHref ?? (props.readOnly ? undefined : ownFileHref);
  const branchingBlocked = props.readOnly ? null : props.branchingBlocked;
  // The one message being edited in place (its editor replaces it until sent or cancelled).
  const [editingId, setEditingId] = useState<string | null>(null);
  // Built again only when the messages, the active turn or the guard change, so a streamed
  // delta or a tool's progress redraws no message.
  const branching = useMemo(
    () => (actions ? branchingFor(messages, { activeRunId, blockedReason: branchingBlocked, actions, openEditor: setEditingId }) : null),
    [messages, activeRunId, branchingBlocked, actions],
  );
  // A finished turn's timeline sits under its last message; the live turn has its cards. The
  // calls are grouped again only when a call changed, so each timeline keeps its (memoized) props.
  const callsByRun = useMemo(() => groupByRun(toolCalls), [toolCalls]);
  const turnEnds = useMemo(() => lastMessageOfEachTurn(messages, callsByRun, activeRunId), [messages, callsByRun, activeRunId]);
  // Stable while no call changes: an appended message then redraws nothing above it.
  const renderToolCall = useCallback(
    (toolUseId: string) => {
      const call = toolCalls[toolUseId];
      if (!call) return null;
      // Read-only: always the plain card, whatever the call's status says (a reader decides nothing).
      if (!actions || !isLiveCall(call)) return <ToolCallCard call={call} readOnly />;
      if (call.status === 'pending_approval') return <ApprovalCard call={call} onDecide={actions.decide} onStop={actions.stop} />;
      if (call.status === 'awaiting_input') return <InputCard call={call} onAnswer={actions.answer} />;
      if (call.status === 'awaiting_sign_in') return <SignInCard call={call} onStop={actions.stop} />;
      return <ToolCallCard call={call} progress={progress[call.id]} onSwitchOn={actions.switchOn} />;
    },
    [toolCalls, progress, actions],
  );
  // The last answer, cut at the length limit with no turn running, offers to go on; one that was
  // continued (the rest of it follows as the next message) says nothing more.
  const continuable = (i: number) => !activeRunId && i === messages.length - 1 && messages[i]!.stopReason === 'max_tokens';
  const stopReasonOf = (i: number) =>
    messages[i]!.stopReason === 'max_tokens' && messages[i + 1]?.role === 'assistant' ? null : messages[i]!.stopReason;
  const from = props.shownFrom ?? 0;
  return messages.slice(from).map((m, at) => {
    const i = from + at;
    return (
      <Fragment key={m.id}>
        {actions && editingId === m.id ? (
          <MessageEditor
            initial={textOfMessage(m)}
            blockedReason={branchingBlocked}
            onSave={async (text) => {
              const failed = await actions.edit(m.id, text);
              if (!failed) setEditingId(null);
              return failed;
            }}
            onCancel={() => {
              setEditingId(null);
              requestAnimationFrame(() => document.getElementById(editButtonId(m.id))?.focus());
            }}
          />
        ) : (
          <MessageItem
            role={m.role}
            content={m.content}
            stopReason={stopReasonOf(i)}
            renderToolCall={renderToolCall}
            onContinue={actions && continuable(i) ? actions.continue : undefined}
            origin={m.origin}
            files={m.files}
            fileHref={fileHref}
            filesHidden={shared?.[i]?.filesHidden}
            branching={branching?.get(m.id)}
          />
        )}
        {'usage' in m && m.usage && <TurnUsage usage={m.usage} />}
        {m.runId && turnEnds.get(m.runId) === m.id && <TurnTimeline calls={callsByRun.get(m.runId) ?? []} readOnly={props.readOnly} />}
        {'summary' in m && m.summary && <SummaryMark text={m.summary.text} />}
      </Fragment>
    );
  });
});

/** A call of the person's own conversation (a shared one never carries its argument hash). */
function isLiveCall(call: CardToolCall): call is ToolCallView {
  return 'argsHash' in call;
}

function groupByRun<C extends CardToolCall>(toolCalls: Record<string, C>): Map<string, C[]> {
  const callsByRun = new Map<string, C[]>();
  for (const c of Object.values(toolCalls)) callsByRun.set(c.runId, [...(callsByRun.get(c.runId) ?? []), c]);
  return callsByRun;
}

/** For each finished run with tool calls, the id of its last message. */
function lastMessageOfEachTurn(
  messages: { id: string; runId: string | null }[],
  callsByRun: Map<string, unknown>,
  activeRunId: string | undefined,
) {
  const turnEnds = new Map<string, string>();
  for (const m of messages) if (m.runId && m.runId !== activeRunId && callsByRun.has(m.runId)) turnEnds.set(m.runId, m.id);
  return turnEnds;
}
