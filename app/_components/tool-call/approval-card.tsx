'use client';

import { ShieldAlert, TriangleAlert } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';

import type { DecisionKind } from '@/db/vocabulary';

import type { ToolCallView } from '../types';
import { Button, Card, CardBody, CardFooter, CardHeader, CodeBlock, Field, Input, Notice, Textarea } from '../ui/index';
import { sessionChoices } from './allow-session';
import { ToolCallHeader } from './tool-call-header';

export type { DecisionKind };

/** What a decision may carry besides its kind: a reason for the model, edited arguments, a session grant's limit. */
export type DecisionExtras = { reason?: string; input?: Record<string, unknown>; constraint?: Record<string, unknown> };

/** "Notes wants to run create with title “Groceries”, body “milk, eggs”": the arguments that matter, in words. */
function inWords(call: ToolCallView): string {
  const who = call.server ?? 'The model';
  const what = call.tool ?? call.modelName;
  const args = call.input && typeof call.input === 'object' && !Array.isArray(call.input) ? Object.entries(call.input) : [];
  const shown = args
    .filter(([, v]) => ['string', 'number', 'boolean'].includes(typeof v))
    .slice(0, 3)
    .map(([k, v]) => {
      const text = String(v);
      return `${k} “${text.length > 60 ? `${text.slice(0, 57)}…` : text}”`;
    });
  const rest = args.length - shown.length;
  const tail = shown.length
    ? ` with ${shown.join(', ')}${rest > 0 ? ` and ${rest} more` : ''}`
    : args.length
      ? ' with the arguments below'
      : '';
  // A view's call: the person should know the model did not ask for it.
  return call.askedByView ? `The interactive view asks to run ${what} on ${who}${tail}.` : `${who} wants to run ${what}${tail}.`;
}

/**
 * A call waiting for the person: what it will do in words, the exact arguments, the hints as
 * badges, and the choices. Focus moves to the card when it appears (so a screen reader announces
 * it), never to a button: Enter cannot approve anything by accident, least of all a destructive call.
 */
export function ApprovalCard({
  call,
  onDecide,
  onStop,
}: {
  call: ToolCallView;
  onDecide: (call: ToolCallView, decision: DecisionKind, extras?: DecisionExtras) => Promise<void>;
  /** Stops the turn the call belongs to; absent for a view's call, which holds no turn. */
  onStop?: () => void;
}) {
  const [mode, setMode] = useState<'choose' | 'deny' | 'edit' | 'session'>('choose');
  const session = call.allowForSession;
  const choices = mode === 'session' ? sessionChoices(call) : [];
  const [limit, setLimit] = useState('any');
  const [reason, setReason] = useState('');
  const [draft, setDraft] = useState(() => JSON.stringify(call.input, null, 2));
  const [draftError, setDraftError] = useState('');
  const [busy, setBusy] = useState(false);
  const card = useRef<HTMLElement>(null);
  useEffect(() => {
    card.current?.focus({ preventScroll: false });
  }, []);

  const decide = async (d: DecisionKind, extras?: DecisionExtras) => {
    setBusy(true);
    try {
      await onDecide(call, d, extras);
    } finally {
      setBusy(false);
    }
  };
  // Edit-then-approve: the server validates the edited input against the tool's schema again.
  const approveEdited = () => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(draft);
    } catch (err) {
      return setDraftError(`Not valid JSON: ${(err as Error).message}`);
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return setDraftError('The arguments must be a JSON object.');
    setDraftError('');
    void decide('allow_once', { input: parsed as Record<string, unknown> });
  };
  const warnings = call.verdict?.warnings ?? [];
  const destructive = call.hints.destructive;
  return (
    <Card
      as="section"
      ref={card}
      tabIndex={-1}
      tone={destructive ? 'danger' : 'warning'}
      aria-label={`Approve ${call.server ?? ''} ${call.tool ?? call.modelName}?`}
      data-testid="approval-card"
      className="outline-none focus-visible:ring-2 focus-visible:ring-focus"
    >
      <CardHeader icon={destructive ? TriangleAlert : ShieldAlert} title={<ToolCallHeader call={call} />} />
      <CardBody>
        <p className="text-[15px] text-fg">{inWords(call)}</p>
        {call.askedByView && (
          <p className="text-sm font-medium text-warning-text" data-testid="asked-by-view">
            Asked by the interactive view, not the model.
          </p>
        )}
        {call.verdict && <p className="text-sm text-muted">{call.verdict.reason}</p>}
        {warnings.map((w) => (
          <Notice key={w} tone="warning">
            {w}
          </Notice>
        ))}
        <CodeBlock label="Exact arguments" wrap maxHeight="md" data-testid="approval-arguments">
          {JSON.stringify(call.input, null, 2)}
        </CodeBlock>
        <p className="font-mono text-[11px] text-faint" title="SHA-256 of the arguments; your decision is bound to it">
          args {call.argsHash.slice(0, 16)}…
        </p>
        {mode === 'edit' && (
          <div className="space-y-2">
            <Field label="Edit the arguments (JSON), then approve" error={draftError || undefined}>
              <Textarea
                autoFocus
                value={draft}
                rows={Math.min(14, draft.split('\n').length + 1)}
                onChange={(e) => setDraft(e.target.value)}
                className="font-mono text-xs"
              />
            </Field>
          </div>
        )}
        {mode === 'session' && (
          <fieldset className="space-y-1.5" data-testid="session-limits">
            <legend className="text-sm font-medium text-fg">Run it without asking for the rest of this session, for</legend>
            {choices.map((c) => (
              <label key={c.key} className="flex items-start gap-2 text-sm text-fg">
                <input
                  type="radio"
                  name={`limit-${call.id}`}
                  className="mt-1 size-4 accent-accent"
                  checked={limit === c.key}
                  onChange={() => setLimit(c.key)}
                  autoFocus={c.key === 'any'}
                />
                <span className="min-w-0 break-words">{c.label}</span>
              </label>
            ))}
            <p className="text-[13px] text-faint">
              It ends when you sign out, or sooner when the tool’s grant expires. The Tools panel shows it and can revoke it.
            </p>
          </fieldset>
        )}
        {mode === 'deny' && (
          <form
            id={`deny-${call.id}`}
            onSubmit={(e) => {
              e.preventDefault();
              void decide('deny', { reason: reason.trim() || undefined });
            }}
          >
            <Field label={`Reason for the ${call.askedByView ? 'view' : 'model'} (optional)`}>
              <Input autoFocus value={reason} maxLength={1000} onChange={(e) => setReason(e.target.value)} />
            </Field>
          </form>
        )}
      </CardBody>
      <CardFooter>
        {mode === 'edit' ? (
          <>
            <Button variant="primary" size="sm" loading={busy} onClick={approveEdited}>
              Approve edited
            </Button>
            <Button variant="ghost" size="sm" onClick={() => setMode('choose')}>
              Back
            </Button>
          </>
        ) : mode === 'session' ? (
          <>
            <Button
              variant="primary"
              size="sm"
              loading={busy}
              onClick={() => {
                const constraint = choices.find((c) => c.key === limit)?.constraint ?? undefined;
                void decide('allow_session', constraint ? { constraint } : undefined);
              }}
            >
              Allow for this session
            </Button>
            <Button variant="ghost" size="sm" onClick={() => setMode('choose')}>
              Back
            </Button>
          </>
        ) : mode === 'deny' ? (
          <>
            <Button variant="danger" size="sm" type="submit" form={`deny-${call.id}`} loading={busy}>
              Deny
            </Button>
            <Button variant="ghost" size="sm" onClick={() => setMode('choose')}>
              Back
            </Button>
          </>
        ) : (
          <>
            <Button variant={destructive ? 'danger' : 'primary'} size="sm" loading={busy} onClick={() => void decide('allow_once')}>
              Allow once
            </Button>
            {session.offered && (
              <Button size="sm" disabled={busy} onClick={() => setMode('session')}>
                Allow for this session…
              </Button>
            )}
            <Button size="sm" disabled={busy} onClick={() => setMode('edit')}>
              Edit…
            </Button>
            <Button variant="danger-subtle" size="sm" disabled={busy} onClick={() => setMode('deny')}>
              Deny…
            </Button>
            {onStop && (
              <Button variant="ghost" size="sm" className="ml-auto" onClick={onStop}>
                Stop
              </Button>
            )}
            {!session.offered && session.why && (
              <p className="w-full text-xs text-faint" data-testid="no-session-why">
                “Allow for this session” is not offered. {session.why}
              </p>
            )}
          </>
        )}
      </CardFooter>
    </Card>
  );
}
