'use client';

import { useCallback, useEffect, useLayoutEffect, useMemo, useReducer, useRef, useState } from 'react';

import { RUN_END_EVENTS, type StreamClosed } from '@/lib/agent/events';
import type { EarlierMessagesView } from '@/lib/chat/views';

import { api, ApiError } from '../api';
import { branchRequests } from '../branches/branch-requests';
import type { SendExtras } from '../composer/composer-commands';
import type { DecisionExtras, DecisionKind } from '../tool-call/approval-card';
import type { InputResponses } from '../tool-call/input-card';
import { setViewCallFollower, tellViewCall } from '../tool-call/view-call-news';
import type { ConversationView, MessageView, ToolCallView } from '../types';
import { applyEvent, indexToolCalls, type ChatEvent, type ChatState } from './chat-state';
import { synced, withEarlierPage } from './earlier-pages';
import type { CardActions } from './message-list';
import { useConversationEvents } from './use-conversation-events';

/*
 * A conversation's turns on the page: the state (messages, streaming text, tool calls, the run),
 * following the server's events, and what the person does to them (send, continue, stop, decide,
 * answer, edit, regenerate, switch versions). chat-view.tsx only draws it.
 */

type Action =
  | { kind: 'event'; event: ChatEvent }
  | { kind: 'sent'; message: MessageView }
  | { kind: 'sync'; view: ConversationView }
  | { kind: 'earlier'; beforeId: string; page: EarlierMessagesView };

function reducer(state: ChatState, action: Action): ChatState {
  if (action.kind === 'sent') return { ...state, messages: [...state.messages, action.message], lastRun: null };
  if (action.kind === 'sync') return synced(state, action.view);
  if (action.kind === 'earlier') return withEarlierPage(state, action.beforeId, action.page);
  return applyEvent(state, action.event);
}

// After a lost stream, the state is read again at once; following again waits a moment, so a
// failing server is not asked again in a tight loop.
const FOLLOW_AGAIN_AFTER_MS = 1000;

/** What the turns need from the page around them. */
export interface TurnHooks {
  /** Waits for model and thinking settings being saved, so a new turn goes out under them. */
  settled: () => Promise<void>;
  /** A turn ended: it may have titled the conversation, or changed what its tools may do. */
  onTurnEnded: () => void;
  /** A decision landed (a grant may have been given). */
  onDecided: () => void;
  /** A card's "Switch on": opens the Tools panel at this tool. */
  switchOn: (modelName: string) => void;
}

/** `pingMs`: the server's ping interval; a stream silent for two of them is given up. */
export function useConversationTurns(initial: ConversationView, pingMs: number, page: TurnHooks) {
  // The page's newest callbacks, for the functions below that live as long as the page.
  const hooks = useRef(page);
  useLayoutEffect(() => {
    hooks.current = page;
  });
  const [state, dispatch] = useReducer(reducer, {
    messages: initial.messages,
    earlier: initial.earlier,
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
  const [loadingEarlier, setLoadingEarlier] = useState(false);
  const [earlierFailed, setEarlierFailed] = useState(false);

  // A turn an edit or a regeneration started: when it ends, the page reads the conversation again,
  // so its new answer shows its place among its versions (`‹ 2 / 2 ›`), which no event carries.
  const rereadAfterTurn = useRef(false);
  const onEvent = useCallback(
    (event: ChatEvent) => {
      dispatch({ kind: 'event', event });
      if ('toolCall' in event.data && event.data.toolCall.askedByView) tellViewCall(event.data.toolCall);
      if (RUN_END_EVENTS.has(event.type)) {
        hooks.current.onTurnEnded();
        if (rereadAfterTurn.current) {
          rereadAfterTurn.current = false;
          void api<ConversationView>(`/api/conversations/${initial.id}`)
            .then((view) => dispatch({ kind: 'sync', view }))
            .catch(() => {});
        }
      }
    },
    [initial.id],
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
  // A view's card with calls waiting for a decision: follow the conversation (unless a run is followed already).
  const seen = useRef({ activeRun: state.activeRun, lastSeq: state.lastSeq });
  useLayoutEffect(() => {
    seen.current = { activeRun: state.activeRun, lastSeq: state.lastSeq };
  });
  useEffect(() => {
    setViewCallFollower(() => {
      if (!seen.current.activeRun) followFrom(seen.current.lastSeq);
    });
    return () => setViewCallFollower(null);
  }, [followFrom]);
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

  // The page of the path before the first message the page has (lib/chat/path-page.ts).
  const firstId = state.messages[0]?.id;
  const loadEarlier = useCallback(async () => {
    if (!firstId || loadingEarlier) return;
    setLoadingEarlier(true);
    try {
      const page = await api<EarlierMessagesView>(`/api/conversations/${initial.id}/messages?before=${firstId}`);
      dispatch({ kind: 'earlier', beforeId: firstId, page });
      setEarlierFailed(false);
    } catch (err) {
      setEarlierFailed(true);
      setNotice(err instanceof ApiError ? err.message : 'Could not load the earlier messages.');
    } finally {
      setLoadingEarlier(false);
    }
  }, [initial.id, firstId, loadingEarlier]);

  async function send(text: string, extras: SendExtras = {}): Promise<boolean> {
    setSending(true);
    setNotice('');
    try {
      await hooks.current.settled();
      // The server takes the files by their refs (in `attachments`); their views were for the composer.
      const started = await api<{ runId: string; afterSeq: number; messages: MessageView[] }>(`/api/conversations/${initial.id}/messages`, {
        method: 'POST',
        body: { text, ...extras, files: undefined },
      });
      // The opening messages as stored: real ids (an edit needs them), parent, origin, files.
      const sent = started.messages;
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
      await hooks.current.settled();
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
      if (path === 'decision') hooks.current.onDecided();
      if (res.resumed) followFrom(state.lastSeq);
    } catch (err) {
      setNotice(err instanceof ApiError ? err.message : failure);
      // The card was stale (the server asked again, or the call moved on): show it as it is now.
      if (err instanceof ApiError && err.status === 409) void resync();
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
  // Bound to the question on screen (`inputRound`): an answer to one the server has since asked again is refused.
  // A card replayed from an event stored before rounds existed has none: the server decides whether that is safe.
  const answer = (call: ToolCallView, responses: InputResponses) =>
    settle(call, 'input', { responses, ...(call.inputRound !== null && { round: call.inputRound }) }, 'Could not send the answer.');
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
    branchRequests({ conversationId: initial.id, messages: state.messages, settled: () => hooks.current.settled(), show: showBranch });
  // The cards get one actions object for the page's life (the list is memoized); it calls the
  // newest functions, which see the newest state.
  const latest = useRef({ decide, answer, stop, continueAnswer, branches });
  useLayoutEffect(() => {
    latest.current = { decide, answer, stop, continueAnswer, branches };
  });
  const cardActions = useMemo<CardActions>(
    () => ({
      decide: (...args) => latest.current.decide(...args),
      answer: (...args) => latest.current.answer(...args),
      stop: () => latest.current.stop(),
      continue: () => latest.current.continueAnswer(),
      switchOn: (modelName) => hooks.current.switchOn(modelName),
      edit: (...args) => latest.current.branches().edit(...args),
      regenerate: (...args) => latest.current.branches().regenerate(...args),
      step: (...args) => latest.current.branches().step(...args),
      showBeneath: (...args) => latest.current.branches().showBeneath(...args),
    }),
    [],
  );

  return { state, sending, notice, setNotice, closed, resync, send, stop, decide, cardActions, loadEarlier, loadingEarlier, earlierFailed };
}
