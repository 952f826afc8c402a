'use client';

import { CircleStop, GitBranch, Info, Paperclip } from 'lucide-react';
import { memo } from 'react';

import { MessageActions, type MessageBranching } from '../branches/message-actions';
import type { FileHref, FileView } from '../files/file-view';
import { MessageFiles } from '../files/message-files';
import { Markdown } from '../markdown/markdown';
import { hiddenFilesSentence } from '../share/share-view';
import type { ContentBlock } from '../types';
import { CopyButton, cx, Notice } from '../ui/index';
import { ContinueNotice } from './continue-notice';
import { AttachedResources, PromptMark, ViewContextNote, type MessageOrigin } from './message-origin';
import { ThinkingSection } from './thinking-section';

/**
 * One stored message. User turns that only carry tool results are shown by their tool card.
 * Memoized: a stored message never changes, so it is drawn again only when its cards may have.
 */
export const MessageItem = memo(function MessageItem({
  role,
  content,
  stopReason,
  renderToolCall,
  onContinue,
  origin,
  files,
  fileHref,
  filesHidden,
  branching,
}: {
  role: 'user' | 'assistant';
  content: unknown;
  stopReason?: string | null;
  renderToolCall?: (toolUseId: string) => React.ReactNode;
  /** Given to the last answer when it was cut at the length limit: Continue asks the model to go on. */
  onContinue?: () => Promise<void>;
  /** A server's prompt or attached resources: marked with the server (message-origin.tsx). */
  origin?: MessageOrigin;
  /** The files the person sent with it, and where their bytes are read (their own API, or a share's URL). */
  files?: FileView[];
  fileHref?: FileHref;
  /** On a shared page whose owner kept the files back: how many there were. */
  filesHidden?: number;
  /** Edit, regenerate and versions, on the person's own conversation page (branches/). */
  branching?: MessageBranching;
}) {
  const blocks: ContentBlock[] = Array.isArray(content) ? content : [{ type: 'text', text: String(content ?? '') }];
  const texts = blocks.filter((b) => b.type === 'text').map((b) => (b as { text: string }).text);
  if (role === 'user' && origin?.kind === 'view_context') return <ViewContextNote origin={origin} blocks={blocks} />;
  if (role === 'user') {
    const text = texts.join('\n');
    const attached = files && fileHref && files.length > 0 ? files : null;
    if (!origin && !text && !attached && !filesHidden) return null;
    return (
      <div className="group/message flex flex-col items-end gap-1.5" data-testid="user-message">
        {origin?.kind === 'prompt' && <PromptMark origin={origin} />}
        {origin?.kind === 'resources' && <AttachedResources origin={origin} blocks={blocks} />}
        {attached && <MessageFiles files={attached} href={fileHref!} />}
        {filesHidden ? (
          <p className="flex items-center gap-1.5 text-xs text-faint" data-testid="files-hidden">
            <Paperclip className="size-3.5 shrink-0" aria-hidden />
            {hiddenFilesSentence(filesHidden)}
          </p>
        ) : null}
        {text && <div className={USER_BUBBLE}>{text}</div>}
        {text && (
          <MessageActions align="end" branching={branching}>
            <CopyButton text={text} label="Copy message" />
          </MessageActions>
        )}
      </div>
    );
  }
  const answer = texts.join('\n\n').trim();
  return (
    <div className="group/message space-y-4" data-testid="assistant-message">
      {origin?.kind === 'prompt' && <PromptMark origin={origin} />}
      {blocks.map((b, i) =>
        b.type === 'text' ? (
          <Markdown key={i} text={(b as { text: string }).text} />
        ) : b.type === 'tool_use' ? (
          <div key={i}>{renderToolCall?.((b as { id: string }).id) ?? <ToolUseNote name={(b as { name: string }).name} />}</div>
        ) : b.type === 'thinking' ? (
          <ThinkingSection key={i} text={typeof b.thinking === 'string' ? b.thinking : ''} />
        ) : b.type === 'redacted_thinking' ? (
          <ThinkingSection key={i} redacted />
        ) : null,
      )}
      {stopReason === 'max_tokens' &&
        (onContinue ? <ContinueNotice onContinue={onContinue} /> : <Note>The answer reached the length limit and was cut short.</Note>)}
      {stopReason === 'cancelled' && <Note icon="stopped">Stopped.</Note>}
      {stopReason === 'refusal' && <Note>The model declined to continue this answer.</Note>}
      {stopReason === 'max_steps' && <Note>The turn reached its step limit; send a message to continue.</Note>}
      {(answer || branching) && (
        <MessageActions align="start" branching={branching}>
          {/* The answer's Markdown source, as the model wrote it (not the page's rendering). */}
          {answer && <CopyButton text={answer} label="Copy as Markdown" />}
        </MessageActions>
      )}
    </div>
  );
});

const USER_BUBBLE = cx(
  'max-w-[85%] whitespace-pre-wrap break-words rounded-bubble rounded-br-md bg-bubble px-4 py-2.5',
  'text-base leading-7 text-fg md:max-w-[75%]',
);

function ToolUseNote({ name }: { name: string }) {
  return (
    <div className="inline-flex rounded-control border border-border bg-surface-sunken px-3 py-1.5 font-mono text-xs text-muted">
      Tool call: {name}
    </div>
  );
}

/** A line about the turn itself (stopped, cut short), or an error in it. */
export function Note({
  children,
  tone = 'muted',
  icon,
}: {
  children: React.ReactNode;
  tone?: 'muted' | 'error';
  icon?: 'stopped' | 'forked';
}) {
  if (tone === 'error') return <Notice tone="error">{children}</Notice>;
  const Icon = icon === 'stopped' ? CircleStop : icon === 'forked' ? GitBranch : Info;
  return (
    // The icon stays by the first line when the note wraps (a forked conversation's origin).
    <p className="flex items-start gap-1.5 text-[13px] leading-5 text-faint">
      <Icon className="mt-[3px] size-3.5 shrink-0" aria-hidden />
      <span>{children}</span>
    </p>
  );
}
