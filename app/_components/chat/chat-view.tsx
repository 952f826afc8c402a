'use client';

import { ArrowDown } from 'lucide-react';
import { useMemo, useState } from 'react';

import type { ThinkingKind } from '@/lib/model/thinking-kind';

import { branchingBlockedReason } from '../branches/branch-guard';
import { EarlierAnswers } from '../branches/earlier-answers';
import { Composer } from '../composer/composer';
import { ConversationInstructions } from '../instructions/conversation-instructions';
import { Markdown } from '../markdown/markdown';
import { ShareButton } from '../share/share-button';
import { ShareDialog } from '../share/share-dialog';
import { forkNote, shareUnavailableReason } from '../share/share-view';
import { useWhen } from '../share/use-when';
import { useConversationList } from '../shell/conversation-list';
import { InHeaderSlot } from '../shell/header-slot';
import { ToolsButton } from '../tools-panel/tools-button';
import { ToolsPanel } from '../tools-panel/tools-panel';
import { enabledCount } from '../tools-panel/tools-view';
import { useConversationTools } from '../tools-panel/use-conversation-tools';
import type { ConversationView } from '../types';
import { Badge, Button, Notice } from '../ui/index';
import { EmptyConversation } from './empty-conversation';
import { ExportMenu } from './export-menu';
import { Note } from './message-item';
import { MessageList } from './message-list';
import { ModelPicker } from './model-picker';
import { MoreMessages } from './more-messages';
import { usePendingSettings } from './pending-settings';
import { ThinkingSection } from './thinking-section';
import { ThinkingToggle } from './thinking-toggle';
import { useConversationTurns } from './use-conversation-turns';
import { useRevealFromEnd } from './use-reveal-from-end';
import { useStickToBottom } from './use-stick-to-bottom';

export { EmptyConversation } from './empty-conversation';

/** `pingMs`: the server's ping interval; a stream silent for two of them is given up. */
export function ChatView({ initial, modelLabel, pingMs }: { initial: ConversationView; modelLabel: string; pingMs: number }) {
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
  const { state, sending, notice, setNotice, closed, resync, send, stop, decide, cardActions, loadEarlier, loadingEarlier, earlierFailed } =
    useConversationTurns(initial, pingMs, {
      settled: settings.settled,
      onTurnEnded: () => {
        // The turn may have titled the conversation and moved it to the top of the list.
        void reloadConversations();
        setToolsKey((k) => k + 1);
      },
      onDecided: () => setToolsKey((k) => k + 1),
      switchOn: (modelName) => {
        setToolsFocus((f) => ({ modelName, key: (f?.key ?? 0) + 1 }));
        setToolsOpen(true);
      },
    });

  const pending = Object.values(state.toolCalls).filter((c) => c.status === 'pending_approval');
  // The branch ends at the person's message whose other answers are elsewhere (a regenerate that failed at once).
  const lastMessage = state.messages.at(-1);
  const unanswered = lastMessage?.answersElsewhere ? lastMessage : null;
  const signIns = Object.values(state.toolCalls).filter((c) => c.status === 'awaiting_sign_in');
  const shownFrom = useRevealFromEnd(state.messages);
  const contentKey = [
    // The newest message, not the count: an earlier page put in front is nothing new below.
    state.messages.at(-1)?.id,
    // Older messages drawn above: a view at the end stays there (not every browser anchors the scroll).
    shownFrom,
    state.partials.map((p) => p.blocks.join('').length).join(','),
    Object.values(state.toolCalls)
      .map((c) => c.status)
      .join(','),
    state.activeRun?.status,
  ].join('|');
  const drawn = useMemo(() => state.messages.slice(shownFrom), [state.messages, shownFrom]);
  const { scroller, onScroll, behind, jumpToLatest } = useStickToBottom<HTMLDivElement>(contentKey, drawn);

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
        {initial.startedBy && (
          <Badge tone="neutral" title="This conversation was started through Switchboard's agent tool (switchboard_ask)">
            via {initial.startedBy}
          </Badge>
        )}
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
          {/* Kept while older messages are drawn above (shownFrom > 0), so what is below does not move when it goes. */}
          {(state.earlier > 0 || shownFrom > 0) && (
            <MoreMessages
              direction="earlier"
              count={state.earlier}
              busy={loadingEarlier || shownFrom > 0}
              failed={earlierFailed}
              onLoad={loadEarlier}
              scroller={scroller}
            />
          )}
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
