'use client';

import { useState } from 'react';

import { Badge, cx, Notice, Sheet, Spinner } from '@/app/_components/ui';
import { useNow } from '@/app/_components/use-now';

import { ModelSees } from './model-sees';
import { ServerSection } from './server-section';
import { isToolCalled } from './switch-on';
import { EXPIRY_CHOICES, PLAN_LABEL, planCount, type ConversationToolsView, type GrantExpiry } from './tools-view';
import type { ToolsActions } from './use-conversation-tools';

/** A tool to open the panel at (a card's "Switch on"): the model's name for it; `key` changes with each request. */
export type ToolsFocus = { modelName: string; key: number };

/** The panel's contents, from one view: what is on, for how long, and what the model is offered. */
export function ToolsPanelContent({
  view,
  actions,
  now,
  focusTool = null,
}: {
  view: ConversationToolsView;
  actions: ToolsActions;
  now: number;
  focusTool?: ToolsFocus | null;
}) {
  const lengths = view.grantLengths.allowed;
  const [chosen, setExpiresIn] = useState<GrantExpiry>('12h');
  // The organization may allow less than was chosen (or than the default): the longest it allows.
  const expiresIn = lengths.includes(chosen) ? chosen : lengths[lengths.length - 1]!;
  const count = planCount(view.plan);
  const focusFound = focusTool && view.servers.some((s) => s.tools.some((t) => isToolCalled(s, t, focusTool.modelName)));
  return (
    <div className="space-y-4">
      {focusTool && !focusFound && (
        <Notice tone="info" data-testid="focus-tool-missing">
          {focusTool.modelName} is not among the tools of your servers any more.
        </Notice>
      )}
      {view.tainted && (
        <Notice tone="warning" title="Untrusted content is in this conversation: more tools ask" data-testid="taint-notice">
          {view.tainted.reason}
        </Notice>
      )}
      {count.full && (
        <Notice tone="info">
          This conversation has as many tools on as the {PLAN_LABEL[view.plan.name]} allows ({view.plan.enabledTools.max}). Switch one off
          to switch another on.
        </Notice>
      )}
      <fieldset>
        <legend className="text-[13px] font-medium text-fg">A tool you switch on stays on for</legend>
        <div className="mt-1.5 inline-flex rounded-control border border-border-strong bg-surface p-0.5" data-testid="expiry-choice">
          {EXPIRY_CHOICES.filter((choice) => lengths.includes(choice.value)).map((choice) => (
            <label
              key={choice.value}
              className={cx(
                'relative cursor-pointer rounded-[calc(var(--radius-control)-2px)] px-3 py-1 text-[13px] font-medium transition-colors',
                'has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-focus max-md:py-2',
                expiresIn === choice.value ? 'bg-accent-soft text-accent-text' : 'text-muted hover:text-fg',
              )}
            >
              <input
                type="radio"
                name="tools-expiry"
                value={choice.value}
                checked={expiresIn === choice.value}
                onChange={() => setExpiresIn(choice.value)}
                className="sr-only"
              />
              {choice.label}
            </label>
          ))}
        </div>
        {view.grantLengths.why && (
          <p className="mt-1 text-[12px] text-muted" data-testid="org-grant-length">
            {view.grantLengths.why}
          </p>
        )}
      </fieldset>
      {view.servers.map((server) => (
        <ServerSection
          key={server.id}
          view={view}
          server={server}
          now={now}
          expiresIn={expiresIn}
          actions={actions}
          focusTool={focusTool}
        />
      ))}
      <ModelSees offered={view.offered} />
    </div>
  );
}

/** The Tools panel of a conversation: a sheet over the page, filled from the tools view. */
export function ToolsPanel({
  open,
  onClose,
  view,
  loadError,
  actions,
  focusTool = null,
}: {
  open: boolean;
  onClose: () => void;
  /** Open at this tool: scrolled to it, its switch focused. */
  focusTool?: ToolsFocus | null;
  view: ConversationToolsView | null;
  loadError: string;
  actions: ToolsActions;
}) {
  // Expiry in words ticks once a minute while the panel is open.
  const now = useNow(open, 60_000);
  const count = view ? planCount(view.plan) : null;
  return (
    <Sheet
      open={open}
      onClose={onClose}
      data-testid="tools-panel"
      title="Tools"
      badges={
        count && (
          <Badge tone={count.full ? 'warning' : 'neutral'} data-testid="tools-count" title={count.title}>
            {count.text}
          </Badge>
        )
      }
      description="Only what is on here is offered to the model in this conversation. Changes apply from its next step."
    >
      {view ? (
        <ToolsPanelContent view={view} actions={actions} now={now} focusTool={focusTool} />
      ) : loadError ? (
        <Notice tone="error">{loadError}</Notice>
      ) : (
        <Spinner size="md" label="Loading the tools" />
      )}
    </Sheet>
  );
}
