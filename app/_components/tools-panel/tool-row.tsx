'use client';

import { CircleSlash } from 'lucide-react';
import Link from 'next/link';
import { useEffect, useId, useRef, useState } from 'react';

import { ApiError } from '@/app/_components/api';
import { AnnotationBadgeList } from '@/app/_components/servers/tool-list';
import { Badge, Button, cx, Switch } from '@/app/_components/ui';
import { describeConstraint } from '@/lib/consent/constraints';

import { ConstraintEditor } from './constraint-form';
import { ToolChanges } from './tool-changes';
import {
  argumentsOf,
  errorPlace,
  hintBadges,
  isOn,
  reenableBody,
  STATE_BADGE,
  switchBody,
  toolControls,
  toolLabel,
  updateBody,
  type ConversationToolsView,
  type GrantExpiry,
  type ServerEntry,
  type ToolEntry,
} from './tools-view';
import type { ToolsActions } from './use-conversation-tools';

type RowError = { place: 'constraint' | 'autoApprove' | 'row'; message: string };

/** One tool in the panel: the switch, what it is, and — once on — its grant's settings. */
export function ToolRow({
  view,
  trust,
  tool,
  now,
  expiresIn,
  actions,
  focusKey,
}: {
  view: ConversationToolsView;
  /** The server's: an untrusted server's "read-only" is only a claim. */
  trust: ServerEntry['trust'];
  tool: ToolEntry;
  now: number;
  /** The expiry chosen at the top of the panel, for a tool switched on now. */
  expiresIn: GrantExpiry;
  actions: ToolsActions;
  /** Set when the panel was opened at this tool (a card's "Switch on"); each new value scrolls to it again. */
  focusKey?: number;
}) {
  const c = toolControls(tool, now, describeConstraint);
  const row = useRef<HTMLLIElement>(null);
  useEffect(() => {
    if (focusKey === undefined) return;
    // A frame later: the sheet opens (and focuses its title) in the same commit, after this effect.
    const frame = requestAnimationFrame(() => {
      row.current?.scrollIntoView({ block: 'center' });
      (row.current?.querySelector<HTMLElement>('[role="switch"]') ?? row.current)?.focus();
    });
    return () => cancelAnimationFrame(frame);
  }, [focusKey]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<RowError | null>(null);
  const [editing, setEditing] = useState(false);
  const labelId = useId();
  const descriptionId = useId();

  /** Runs one change; a refusal goes under the part it is about (ApiError.field). */
  const act = async (change: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await change();
      return true;
    } catch (err) {
      setError(
        err instanceof ApiError
          ? { place: errorPlace(err.field), message: err.message }
          : { place: 'row', message: 'Could not save the change.' },
      );
      return false;
    } finally {
      setBusy(false);
    }
  };
  const state = STATE_BADGE[tool.state];
  const suspended = c.review;
  return (
    <li
      ref={row}
      data-testid="panel-tool"
      data-tool={tool.name}
      data-focused={focusKey !== undefined || undefined}
      tabIndex={focusKey !== undefined && !c.toggle ? -1 : undefined}
      className={cx(
        'space-y-2 px-4 py-3',
        suspended && 'bg-warning-soft/60',
        c.leftOut && !suspended && !c.toggle && 'opacity-80',
        focusKey !== undefined && !suspended && 'bg-accent-soft/50',
      )}
    >
      <div className="flex items-start gap-3">
        <div className="min-w-0 flex-1">
          <div className="flex flex-wrap items-center gap-x-2 gap-y-1">
            <span id={labelId} className="min-w-0 break-words text-sm font-medium text-fg">
              {toolLabel(tool)}
            </span>
            {tool.title && tool.title !== tool.name && <code className="font-mono text-xs text-faint break-all">{tool.name}</code>}
            {state && (
              <Badge tone={state.tone} data-testid="tool-state">
                {state.label}
              </Badge>
            )}
            <AnnotationBadgeList badges={hintBadges(tool.hints, trust)} />
          </div>
          {tool.description && (
            <p id={descriptionId} className="mt-1 line-clamp-2 text-[13px] leading-5 text-muted">
              {tool.description}
            </p>
          )}
        </div>
        {c.toggle && (
          <Switch
            checked={isOn(tool)}
            busy={busy}
            label={`${toolLabel(tool)}: ${isOn(tool) ? 'on' : 'off'} in this conversation`}
            aria-describedby={tool.description ? descriptionId : undefined}
            onChange={(on) => void act(() => actions.put(switchBody(tool.scope, on, expiresIn)))}
            className="mt-0.5"
          />
        )}
      </div>

      {c.viaServer && <p className="text-[13px] text-muted">On through “All tools of this server”.</p>}

      {c.leftOut && !suspended && (
        <p className="flex items-start gap-1.5 text-[13px] leading-5 text-muted" data-testid="left-out-reason">
          <CircleSlash className="mt-0.5 size-3.5 shrink-0" aria-hidden />
          <span>
            {c.leftOut}
            {tool.leftOut?.reason === 'not_reviewed' && (
              <>
                {' '}
                <Link href="/servers" className="font-medium text-accent-text underline underline-offset-2">
                  Review on the Servers page
                </Link>
              </>
            )}
          </span>
        </p>
      )}
      {c.leftOut && !suspended && tool.changes && <ToolChanges changes={tool.changes} />}

      {suspended && (
        <div className="space-y-2" data-testid="suspended">
          <p className="text-[13px] leading-5 text-warning-text">
            {c.leftOut ?? 'This tool changed since you allowed it, so it is not offered until you look again.'}
          </p>
          {tool.changes && <ToolChanges changes={tool.changes} />}
          <div className="flex flex-wrap gap-2">
            <Button size="sm" variant="primary" loading={busy} onClick={() => void act(() => actions.put(reenableBody(tool, expiresIn)))}>
              Review and enable again
            </Button>
            {tool.grant && (
              <Button size="sm" variant="ghost" disabled={busy} onClick={() => void act(() => actions.revoke(tool.grant!.id))}>
                Remove
              </Button>
            )}
          </div>
        </div>
      )}

      {c.revoke && tool.grant && (
        <div className="space-y-2 text-[13px]">
          <div className="flex flex-wrap items-center gap-x-3 gap-y-1 text-muted">
            <span data-testid="grant-expiry">{c.expiry}</span>
            <button
              type="button"
              className="font-medium text-danger-text underline-offset-2 hover:underline disabled:opacity-50"
              disabled={busy}
              onClick={() => void act(() => actions.revoke(tool.grant!.id))}
            >
              Revoke
            </button>
          </div>
          {c.autoApprove.show && (
            <div>
              <label className={cx('inline-flex items-center gap-2', c.autoApprove.allowed ? 'text-fg' : 'text-faint')}>
                <input
                  type="checkbox"
                  className="size-4 accent-accent"
                  checked={c.autoApprove.checked}
                  disabled={busy || (!c.autoApprove.allowed && !c.autoApprove.checked)}
                  aria-describedby={c.autoApprove.hint ? `${labelId}-auto-hint` : undefined}
                  onChange={(e) => void act(() => actions.put(updateBody(tool.grant!, { autoApprove: e.target.checked })))}
                />
                Run without asking
              </label>
              {c.autoApprove.hint && (
                <p id={`${labelId}-auto-hint`} className="mt-0.5 text-faint">
                  {c.autoApprove.hint}
                </p>
              )}
              {error?.place === 'autoApprove' && <p className="mt-0.5 text-danger-text">{error.message}</p>}
            </div>
          )}
          {c.constraint.show && !editing && (
            <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
              <span className="text-muted" data-testid="grant-constraint">
                {c.constraint.words ? (
                  <>
                    Only when <span className="font-medium text-fg">{c.constraint.words}</span>
                  </>
                ) : (
                  'Any arguments'
                )}
              </span>
              <button
                type="button"
                className="font-medium text-accent-text underline-offset-2 hover:underline"
                onClick={() => {
                  setError(null);
                  setEditing(true);
                }}
              >
                {c.constraint.words ? 'Change limit' : 'Limit arguments…'}
              </button>
              {c.constraint.words && (
                <button
                  type="button"
                  className="font-medium text-muted underline-offset-2 hover:underline disabled:opacity-50"
                  disabled={busy}
                  onClick={() => void act(() => actions.put(updateBody(tool.grant!, { constraint: null })))}
                >
                  Remove limit
                </button>
              )}
            </div>
          )}
          {c.constraint.show && editing && (
            <ConstraintEditor
              args={argumentsOf(view, tool)}
              error={error?.place === 'constraint' ? error.message : null}
              onCancel={() => setEditing(false)}
              onSave={async (constraint) => {
                if (await act(() => actions.put(updateBody(tool.grant!, { constraint })))) setEditing(false);
              }}
            />
          )}
        </div>
      )}
      {error &&
        (error.place === 'row' || (error.place === 'constraint' && !editing) || (error.place === 'autoApprove' && !c.autoApprove.show)) && (
          <p role="alert" className="text-[13px] text-danger-text">
            {error.message}
          </p>
        )}
    </li>
  );
}
