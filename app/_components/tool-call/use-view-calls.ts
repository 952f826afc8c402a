'use client';

import { useCallback, useEffect, useRef, useState } from 'react';

import { FINISHED_CALL_STATUSES, isOneOf } from '@/db/vocabulary';

import { api, ApiError } from '../api';
import type { CardToolCall, ToolCallView } from '../types';
import type { DecisionExtras, DecisionKind } from './approval-card';
import { followViewCalls, listenToViewCalls } from './view-call-news';

/** A result as the MCP Apps bridge carries it back to the view: what the tool wrote (Switchboard's own notes left out). */
export type ViewContent = { type: 'text'; text: string } | { type: 'image'; data: string; mimeType: string };
export type ViewToolResult = { isError: boolean; content: ViewContent[] };

export function toolResultOf(call: Pick<CardToolCall, 'result'>): ViewToolResult {
  const content: ViewContent[] = [];
  for (const p of call.result?.parts ?? []) {
    if (p.kind === 'output') content.push({ type: 'text', text: p.text });
    else if (p.kind === 'image') content.push({ type: 'image', data: p.data, mimeType: p.mediaType });
    // A denial or a refusal is in Switchboard's own words: the view is told why, as the model would be.
    else if (p.kind === 'note' && call.result?.isError) content.push({ type: 'text', text: p.text });
  }
  return { isError: call.result?.isError === true, content };
}

const failure = (text: string): ViewToolResult => ({ isError: true, content: [{ type: 'text', text }] });

/**
 * The tool calls an interactive view asks for (`tools/call`), for its card: each goes to
 * `POST /api/tool-calls/:id/view/calls`, which decides it by the same consent as the model's calls.
 * One the server answers at once goes straight back to the view; one that needs the person waits
 * here, shown as an approval card, and the view's request is answered when the person decides
 * (the decision's answer carries the result). Calls still waiting from before a reload are listed
 * again, so the person can still decide them (their result then reaches only the card).
 */
export function useViewCalls(viewOf: string) {
  const [asks, setAsks] = useState<ToolCallView[]>([]);
  const [outcome, setOutcome] = useState<string | null>(null);
  // A call that ended because its server needs the person to sign in: the card offers Connect.
  const [signIn, setSignIn] = useState<ToolCallView | null>(null);
  const told = useCallback((call: ToolCallView) => {
    setOutcome(outcomeInWords(call));
    if (call.signIn) setSignIn(call);
  }, []);
  const waiters = useRef(new Map<string, (r: ViewToolResult) => void>());
  // The calls this card has shown waiting: the only ones whose news it takes.
  const shown = useRef(new Set<string>());

  useEffect(() => {
    let live = true;
    api<{ toolCalls: ToolCallView[] }>(`/api/tool-calls/${encodeURIComponent(viewOf)}/view/calls`)
      .then(({ toolCalls }) => {
        if (!live) return;
        const waiting = toolCalls.filter((c) => c.status === 'pending_approval');
        for (const c of waiting) shown.current.add(c.id);
        setAsks((all) => [...all, ...waiting.filter((c) => !all.some((a) => a.id === c.id))]);
      })
      .catch(() => {});
    const pending = waiters.current;
    return () => {
      live = false;
      // The view is going away: its open requests end (it is closed anyway), the calls stay decidable.
      for (const resolve of pending.values()) resolve(failure('The view was closed.'));
      pending.clear();
    };
  }, [viewOf]);

  const settled = useCallback(
    (call: ToolCallView) => {
      shown.current.delete(call.id);
      setAsks((all) => all.filter((c) => c.id !== call.id));
      told(call);
      const resolve = waiters.current.get(call.id);
      waiters.current.delete(call.id);
      resolve?.(toolResultOf(call));
    },
    [told],
  );

  // The same calls as told by the conversation's events: one this view asked in another tab shows
  // here too, and one decided elsewhere (or that ended) leaves its approval card and says how it went.
  useEffect(
    () =>
      listenToViewCalls((call) => {
        if (call.viewOf !== viewOf) return;
        if (call.status === 'pending_approval') {
          shown.current.add(call.id);
          setAsks((all) => (all.some((c) => c.id === call.id) ? all : [...all, call]));
        } else if (shown.current.has(call.id)) {
          if (!isOneOf(FINISHED_CALL_STATUSES, call.status)) {
            setAsks((all) => all.filter((c) => c.id !== call.id));
            setOutcome(`The view's call to ${call.tool ?? call.modelName} was allowed; it is running.`);
          } else settled(call);
        }
      }),
    [viewOf, settled],
  );
  // While calls wait here, the page follows the conversation: a decision in another tab reaches this card.
  const waitingKey = asks.map((c) => c.id).join(',');
  useEffect(() => {
    if (waitingKey) followViewCalls();
  }, [waitingKey]);

  const callTool = useCallback(
    async (name: string, args: Record<string, unknown>): Promise<ViewToolResult> => {
      try {
        const { toolCall } = await api<{ toolCall: ToolCallView }>(`/api/tool-calls/${encodeURIComponent(viewOf)}/view/calls`, {
          method: 'POST',
          body: { name, arguments: args },
        });
        if (toolCall.status !== 'pending_approval') {
          told(toolCall);
          return toolResultOf(toolCall);
        }
        setOutcome(null);
        shown.current.add(toolCall.id);
        setAsks((all) => (all.some((c) => c.id === toolCall.id) ? all : [...all, toolCall]));
        return await new Promise<ViewToolResult>((resolve) => waiters.current.set(toolCall.id, resolve));
      } catch (err) {
        const message = err instanceof ApiError ? err.message : 'Could not reach Switchboard.';
        setOutcome(`The view asked to call ${name}, which was refused: ${message}`);
        return failure(message);
      }
    },
    [viewOf, told],
  );

  const decide = useCallback(
    async (call: ToolCallView, decision: DecisionKind, extras: DecisionExtras = {}) => {
      try {
        const { toolCall } = await api<{ toolCall: ToolCallView }>(`/api/tool-calls/${encodeURIComponent(call.id)}/decision`, {
          method: 'POST',
          body: { decision, argsHash: call.argsHash, ...extras },
        });
        settled(toolCall);
      } catch (err) {
        setOutcome(err instanceof ApiError ? err.message : 'Could not record the decision.');
      }
    },
    [settled],
  );

  return { asks, outcome, signIn, dismissSignIn: () => setSignIn(null), callTool, decide };
}

function outcomeInWords(call: ToolCallView): string {
  const what = `The view's call to ${call.tool ?? call.modelName}`;
  switch (call.status) {
    case 'succeeded':
      return `${what} ran.`;
    case 'denied':
      return `${what} was denied; it did not run.`;
    case 'rejected':
      return `${what} was not run: ${call.verdict?.reason ?? 'it is not allowed here.'}`;
    case 'errored':
      return call.signIn ? `${what} did not run: ${call.signIn.serverName} needs you to sign in first.` : `${what} ended: errored.`;
    default:
      return `${what} ended: ${call.status.replace(/_/g, ' ')}.`;
  }
}
