'use client';

import { ArrowDown } from 'lucide-react';
import { useCallback, useEffect, useLayoutEffect, useMemo, useReducer, useRef, useState } from 'react';

import { RUN_END_EVENTS, type StreamClosed } from '@/lib/agent/events';
import type { ThinkingKind } from '@/lib/model/thinking-kind';

import { api, ApiError } from './api';
import type { DecisionExtras, DecisionKind } from './approval-card';
import { branchingBlockedReason } from './branches/branch-guard';
import { branchRequests } from './branches/branch-requests';
import { EarlierAnswers } from './branches/earlier-answers';
import { applyEvent, indexToolCalls, type ChatEvent, type ChatState } from './chat-state';
import { Composer } from './composer';
import type { SendExtras } from './composer-commands';
import { useConversationList } from './conversation-list';
import { EmptyConversation } from './empty-conversation';
import { ExportMenu } from './export-menu';
import { InHeaderSlot } from './header-slot';
import type { InputResponses } from './input-card';
import { ConversationInstructions } from './instructions/conversation-instructions';
import { Markdown } from './markdown';
import { Note } from './message-item';
import { MessageList, type CardActions } from './message-list';
import { ModelPicker } from './model-picker';
import { usePendingSettings } from './pending-settings';
import { ShareButton } from './share/share-button';
import { ShareDialog } from './share/share-dialog';
import { forkNote, shareUnavailableReason } from './share/share-view';
import { useWhen } from './share/use-when';
import { ThinkingSection } from './thinking-section';
import { ThinkingToggle } from './thinking-toggle';
import { ToolsButton } from './tools-panel/tools-button';
import { ToolsPanel } from './tools-panel/tools-panel';
import { enabledCount } from './tools-panel/tools-view';
import { useConversationTools } from './tools-panel/use-conversation-tools';
import type { ConversationView, MessageView, ToolCallView } from './types';
import { Button, Notice } from './ui';
import { useConversationEvents } from './use-conversation-events';
import { useRevealFromEnd } from './use-reveal-from-end';
import { useStickToBottom } from './use-stick-to-bottom';

export { EmptyConversation } from './empty-conversation';

type Action = { kind: 'event'; event: ChatEvent } | { kind: 'sent'; message: MessageView } | { kind: 'sync'; view: ConversationView };

function reducer(state: ChatState, action: Action): ChatState {
  if (action.kind === 'sent') return { ...state, messages: [...state.messages, action.message], lastRun: null };
  if (action.kind === 'sync') {
    const v = action.view;
    return {
      ...state,
      messages: v.messages,
      toolCalls: indexToolCalls(v.toolCalls),
      activeRun: v.activeRun,
      lastRun: v.lastRun,
      lastSeq: Math.max(state.lastSeq, v.lastSeq),
      partials: [],
      retrying: null,
    };
  }
  return applyEvent(state, action.event);
}

// After a lost stream, the state is read again at once; following again waits a moment, so a
// failing server is not asked again in a tight loop.
const FOLLOW_AGAIN_AFTER_MS = 1000;

/** `pingMs`: the server's ping interval; a stream silent for two of them is given up. */
export function ChatView({ initial, modelLabel, pingMs }: { initial: ConversationView; modelLabel: string; pingMs: number }) {
  const [state, dispatch] = useReducer(reducer, {
    messages: initial.messages,
    partials: [],
    toolCalls: indexToolCalls(initial.toolCalls),
    activeRun: initial.activeRun,
    lastRun: initial.lastRun,
    lastSeq: initial.lastSeq,
    progress: {},
    retrying: null,
  });
  const [follow, setFollow] = useState<{ afterSeq: number; key: number } | null>(
    initial.activeRun ? { afterSeq: initial.activeRun.afterSeq, key: 0 } : null,
  );
  // Why the server ended this page's stream on purpose; until the person acts, it is not reopened.
  const [closed, setClosed] = useState<StreamClosed | null>(null);
  const followFrom = useCallback((afterSeq: number) => {
    setClosed(null);
    setFollow((f) => ({ afterSeq, key: (f?.key ?? 0) + 1 }));
  }, []);
  const [sending, setSending] = useState(false);
  const [notice, setNotice] = useState('');
  // The model and thinking settings being saved: a message waits for them, so it goes out under them.
  const settings = usePendingSettings();
  // How the conversation's model thinks (the picker learns it from the listing): the switch offers a budget or an effort.
  const [thinkingKind, setThinkingKind] = useState<ThinkingKind>('budget');
  // The Tools panel's view is read again when a run ends or a decision lands (a grant may have
  // been given, the conversation tainted): changes apply from the next step.
  const [toolsKey, setToolsKey] = useState(0);
  const [toolsOpen, setToolsOpen] = useState(false);
  // A card's "Switch on": the tool the panel opens at (its model name), renewed by each click.
  const [toolsFocus, setToolsFocus] = useState<{ modelName: string; key: number } | null>(null);
  const [shareOpen, setShareOpen] = useState(false);
  const [shareOpenings, setShareOpenings] = useState(0);
  const when = useWhen();
  const tools = useConversationTools(initial.id, toolsKey);
  const { conversations, reload: reloadConversations } = useConversationList();
  // The list is re-read when a turn ends, so a title the turn wrote shows here too.
  const title = conversations.find((c) => c.id === initial.id)?.title ?? initial.title;

  // A turn an edit or a regeneration started: when it ends, the page reads the conversation again,
  // so its new answer shows its place among its versions (`‹ 2 / 2 ›`), which no event carries.
  const rereadAfterTurn = useRef(false);
  const onEvent = useCallback(
    (event: ChatEvent) => {
      dispatch({ kind: 'event', event });
      if (RUN_END_EVENTS.has(event.type)) {
        // The turn may have titled the conversation and moved it to the top of the list.
        void reloadConversations();
        setToolsKey((k) => k + 1);
        if (rereadAfterTurn.current) {
          rereadAfterTurn.current = false;
          void api<ConversationView>(`/api/conversations/${initial.id}`)
            .then((view) => dispatch({ kind: 'sync', view }))
            .catch(() => {});
        }
      }
    },
    [reloadConversations, initial.id],
  );
  // Ask where the conversation stands, and follow again if a run is on.
  const resync = useCallback(async () => {
    setClosed(null);
    try {
      const view = await api<ConversationView>(`/api/conversations/${initial.id}`);
      dispatch({ kind: 'sync', view });
      if (view.activeRun) setTimeout(() => followFrom(view.activeRun!.afterSeq), FOLLOW_AGAIN_AFTER_MS);
    } catch {
      setNotice('Lost the connection to Switchboard. Reload the page to continue.');
    }
  }, [initial.id, followFrom]);
  useConversationEvents(initial.id, follow, { onEvent, onClosed: setClosed, onLost: () => void resync() }, pingMs);
  // A stream closed as idle waits for this page's own decision; coming back to the tab also
  // catches up with whatever happened elsewhere meanwhile.
  useEffect(() => {
    if (closed?.reason !== 'idle') return;
    const onVisible = () => {
      if (document.visibilityState === 'visible') void resync();
    };
    document.addEventListener('visibilitychange', onVisible);
    return () => document.removeEventListener('visibilitychange', onVisible);
  }, [closed, resync]);

  async function send(text: string, extras: SendExtras = {}): Promise<boolean> {
    setSending(true);
    setNotice('');
    try {
      await settings.settled();
      const { files, ...body } = extras;
      const started = await api<{ runId: string; afterSeq: number; messages?: MessageView[] }>(
        `/api/conversations/${initial.id}/messages`,
        { method: 'POST', body: { text, ...body } },
      );
      // The opening messages come back as stored (real ids, parent, origin); only an answer without them is shown as sent.
      const sent: MessageView[] = started.messages ?? [
        {
          id: `local-${started.runId}`,
          seq: Infinity,
          role: 'user',
          content: [{ type: 'text', text }],
          runId: started.runId,
          stopReason: null,
          createdAt: new Date().toISOString(),
          ...(files?.length ? { files } : {}),
        },
      ];
      for (const message of sent) dispatch({ kind: 'sent', message });
      dispatch({
        kind: 'event',
        event: { type: 'run.started', data: { model: initial.model, runId: started.runId, seq: started.afterSeq + 1 } },
      });
      followFrom(started.afterSeq);
      return true;
    } catch (err) {
      setNotice(err instanceof ApiError ? err.message : 'Could not send the message.');
      return false;
    } finally {
      setSending(false);
    }
  }

  /** Continue on an answer cut at the length limit: a turn with no typed message that goes on with it. */
  async function continueAnswer() {
    setNotice('');
    try {
      await settings.settled();
      const started = await api<{ runId: string; afterSeq: number; messages: MessageView[] }>(`/api/conversations/${initial.id}/messages`, {
        method: 'POST',
        body: { continue: true },
      });
      // Nothing new with a prefill; with thinking on, the short "continue" message as stored.
      for (const message of started.messages) dispatch({ kind: 'sent', message });
      dispatch({
        kind: 'event',
        event: { type: 'run.started', data: { model: initial.model, runId: started.runId, seq: started.afterSeq + 1 } },
      });
      followFrom(started.afterSeq);
    } catch (err) {
      setNotice(err instanceof ApiError ? err.message : 'Could not continue the answer.');
    }
  }

  async function stop() {
    try {
      await api(`/api/conversations/${initial.id}/cancel`, { method: 'POST', body: {} });
      // A paused run has no open stream: follow again to see it end.
      followFrom(state.lastSeq);
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 409)) setNotice(err instanceof ApiError ? err.message : 'Could not stop.');
    }
  }

  /** Records a decision or an answer; if it was the last one the run waited for, follow it again. */
  async function settle(call: ToolCallView, path: 'decision' | 'input', body: unknown, failure: string) {
    setNotice('');
    try {
      const res = await api<{ toolCall: ToolCallView; resumed: boolean }>(`/api/tool-calls/${call.id}/${path}`, { method: 'POST', body });
      dispatch({ kind: 'event', event: { type: 'tool_call.decided', data: { toolCall: res.toolCall, seq: null, runId: call.runId } } });
      if (path === 'decision') setToolsKey((k) => k + 1);
      if (res.resumed) followFrom(state.lastSeq);
    } catch (err) {
      setNotice(err instanceof ApiError ? err.message : failure);
    }
  }
  const decide = (call: ToolCallView, decision: DecisionKind, extras: DecisionExtras = {}) =>
    settle(
      call,
      'decision',
      {
        decision,
        argsHash: call.argsHash,
        ...(extras.reason ? { reason: extras.reason } : {}),
        ...(extras.input ? { input: extras.input } : {}),
        ...(extras.constraint ? { constraint: extras.constraint } : {}),
      },
      'Could not record the decision.',
    );
  const answer = (call: ToolCallView, responses: InputResponses) => settle(call, 'input', { responses }, 'Could not send the answer.');
  // The cards get one actions object for the page's life (the list is memoized); it calls the
  // newest functions, which see the newest state.
  const switchOn = (modelName: string) => {
    setToolsFocus((f) => ({ modelName, key: (f?.key ?? 0) + 1 }));
    setToolsOpen(true);
  };
  // Edit, regenerate and versions: the page then shows the branch as the server now has it.
  const showBranch = useCallback(
    (view: ConversationView) => {
      dispatch({ kind: 'sync', view });
      rereadAfterTurn.current = view.activeRun !== null;
      if (view.activeRun) followFrom(view.activeRun.afterSeq);
    },
    [followFrom],
  );
  const branches = () =>
    branchRequests({ conversationId: initial.id, messages: state.messages, settled: settings.settled, show: showBranch });
  const latest = useRef({ decide, answer, stop, continueAnswer, switchOn, branches });
  useLayoutEffect(() => {
    latest.current = { decide, answer, stop, continueAnswer, switchOn, branches };
  });
  const cardActions = useMemo<CardActions>(
    () => ({
      decide: (...args) => latest.current.decide(...args),
      answer: (...args) => latest.current.answer(...args),
      stop: () => latest.current.stop(),
      continue: () => latest.current.continueAnswer(),
      switchOn: (modelName) => latest.current.switchOn(modelName),
      edit: (...args) => latest.current.branches().edit(...args),
      regenerate: (...args) => latest.current.branches().regenerate(...args),
      step: (...args) => latest.current.branches().step(...args),
      showBeneath: (...args) => latest.current.branches().showBeneath(...args),
    }),
    [],
  );

  const pending = Object.values(state.toolCalls).filter((c) => c.status === 'pending_approval');
  // The branch ends at the person's message whose other answers are elsewhere (a regenerate that failed at once).
  const lastMessage = state.messages.at(-1);
  const unanswered = lastMessage?.answersElsewhere ? lastMessage : null;
  const signIns = Object.values(state.toolCalls).filter((c) => c.status === 'awaiting_sign_in');
  const shownFrom = useRevealFromEnd(state.messages.length);
  const contentKey = [
    state.messages.length,
    // Older messages drawn above: a view at the end stays there (not every browser anchors the scroll).
    shownFrom,
    state.partials.map((p) => p.blocks.join('').length).join(','),
    Object.values(state.toolCalls)
      .map((c) => c.status)
      .join(','),
    state.activeRun?.status,
  ].join('|');
  const { scroller, onScroll, behind, jumpToLatest } = useStickToBottom<HTMLDivElement>(contentKey);

  const running = state.activeRun !== null;
  const empty = state.messages.length === 0 && state.partials.length === 0;
  // For screen readers: what changed that needs the person, not every streamed word.
  const announcement =
    pending.length > 0
      ? `${pending.length === 1 ? 'A tool call needs' : `${pending.length} tool calls need`} your decision.`
      : signIns.length > 0
        ? `${signIns[0]!.signIn?.serverName ?? signIns[0]!.server ?? 'A server'} needs you to sign in.`
        : state.lastRun?.status === 'completed'
          ? 'The answer is complete.'
          : state.lastRun?.status === 'failed'
            ? 'The turn failed.'
            : '';
  const toolsButton = (className?: string) => (
    <ToolsButton
      enabled={tools.view ? enabledCount(tools.view) : null}
      open={toolsOpen}
      onOpen={() => setToolsOpen(true)}
      className={className}
    />
  );
  const shareButton = (className?: string) => (
    <ShareButton
      open={shareOpen}
      onOpen={() => {
        setShareOpenings((n) => n + 1);
        setShareOpen(true);
      }}
      className={className}
    />
  );
  return (
    <div className="relative flex h-full min-h-0 flex-col">
      <p className="sr-only" role="status" aria-live="polite">
        {announcement}
      </p>
      {/* The conversation's header: on a phone its buttons join the shell's header instead. */}
      <div className="hidden h-12 shrink-0 items-center gap-2 border-b border-border px-4 md:flex md:px-6">
        <span className="min-w-0 flex-1 truncate text-sm font-medium text-fg">{title}</span>
        <ConversationInstructions conversationId={initial.id} initial={initial.instructions} track={settings.track} />
        <ExportMenu conversationId={initial.id} />
        {shareButton()}
        {toolsButton()}
      </div>
      <InHeaderSlot>
        <ExportMenu conversationId={initial.id} className="md:hidden" />
        {shareButton('md:hidden')}
        {toolsButton('md:hidden')}
      </InHeaderSlot>
      <ShareDialog
        open={shareOpen}
        onClose={() => setShareOpen(false)}
        conversationId={initial.id}
        title={title}
        unavailable={shareUnavailableReason(state.messages, state.activeRun?.id)}
        openCount={shareOpenings}
      />
      <ToolsPanel
        open={toolsOpen}
        onClose={() => {
          setToolsOpen(false);
          setToolsFocus(null);
        }}
        focusTool={toolsFocus}
        view={tools.view}
        loadError={tools.loadError}
        actions={tools.actions}
      />
      <div ref={scroller} onScroll={onScroll} className="min-h-0 flex-1 overflow-y-auto" data-testid="conversation-scroller">
        <div className="mx-auto w-full max-w-3xl space-y-6 px-4 pb-8 pt-6 md:px-6">
          <h1 className="sr-only">{title}</h1>
          {initial.forkedFrom && <Note icon="forked">{forkNote(initial.forkedFrom, when)}</Note>}
          {empty && <EmptyConversation modelLabel={modelLabel} />}
          <MessageList
            messages={state.messages}
            shownFrom={shownFrom}
            toolCalls={state.toolCalls}
            progress={state.progress}
            activeRunId={state.activeRun?.id}
            branchingBlocked={branchingBlockedReason(state.activeRun)}
            actions={cardActions}
          />
          {state.partials.map((p) => (
            <div key={p.messageId} className="space-y-3" data-testid="streaming-message">
              {p.blocks.map((text, i) =>
                !text ? null : p.thinking.includes(i) ? <ThinkingSection key={i} text={text} live /> : <Markdown key={i} text={text} />,
              )}
            </div>
          ))}
          {pending.length > 1 && (
            <Notice
              tone="warning"
              title={`${pending.length} calls need your decision.`}
              actions={
                <>
                  <Button variant="primary" size="sm" onClick={() => void Promise.all(pending.map((c) => decide(c, 'allow_once')))}>
                    Allow all once
                  </Button>
                  <Button variant="danger-subtle" size="sm" onClick={() => void Promise.all(pending.map((c) => decide(c, 'deny')))}>
                    Deny all
                  </Button>
                </>
              }
            />
          )}
          {state.activeRun?.status === 'running' && state.partials.length === 0 && <Thinking retrying={state.retrying?.message} />}
          {state.lastRun?.stopReason === 'max_steps' && <Note>The turn reached its step limit; send a message to continue.</Note>}
          {state.lastRun?.status === 'failed' && (
            <Note tone="error">
              {state.lastRun.error?.message ?? 'This turn failed.'}
              {/* A plan's limit says itself when it ends; sending again at once would only meet it. */}
              {state.lastRun.error?.code.startsWith('rate_limited:') ? '' : ' You can send your message again.'}
            </Note>
          )}
          {unanswered && !state.activeRun && (
            <EarlierAnswers
              count={unanswered.answersElsewhere!}
              onShow={async () => setNotice((await cardActions.showBeneath(unanswered.id)) ?? '')}
            />
          )}
        </div>
      </div>
      <div className="relative bg-canvas px-3 pb-[max(env(safe-area-inset-bottom),0.75rem)] pt-1 md:px-6">
        {behind && (
          <Button
            size="sm"
            icon={ArrowDown}
            onClick={jumpToLatest}
            className="absolute -top-12 left-1/2 -translate-x-1/2 rounded-full shadow-raised"
            data-testid="jump-to-latest"
          >
            Jump to latest
          </Button>
        )}
        {notice && (
          <Notice tone="error" className="mx-auto mb-2 max-w-3xl">
            {notice}
          </Notice>
        )}
        {closed?.reason === 'too_many_streams' && (
          <Notice
            tone="warning"
            role="alert"
            className="mx-auto mb-2 max-w-3xl"
            actions={
              <Button size="sm" onClick={() => void resync()}>
                Reload to continue here
              </Button>
            }
          >
            {closed.message}
          </Notice>
        )}
        <Composer busy={sending} running={running} onSend={send} onStop={stop} autoFocus conversationId={initial.id} />
        <div className="mx-auto mt-1.5 flex max-w-3xl flex-wrap items-center justify-between gap-x-4 gap-y-1.5">
          <ThinkingToggle conversationId={initial.id} initial={initial.thinking} kind={thinkingKind} track={settings.track} />
          <div className="px-3">
            <ModelPicker conversationId={initial.id} initial={initial.model} track={settings.track} onThinkingKind={setThinkingKind} />
          </div>
        </div>
      </div>
    </div>
  );
}

/** The turn runs and no text came yet; when the model call is being tried again, it says why and when. */
function Thinking({ retrying }: { retrying?: string }) {
  return (
    <div className="flex items-center gap-2.5 text-sm text-muted" role="status" data-testid="thinking">
      <span className="flex gap-1" aria-hidden>
        {[0, 150, 300].map((delay) => (
          <span key={delay} className="size-1.5 animate-pulse rounded-full bg-accent" style={{ animationDelay: `${delay}ms` }} />
        ))}
      </span>
      {retrying ?? 'Thinking…'}
    </div>
  );
}
