'use client';

import { ArrowUp, Square } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';

import { useComposerMenus, type PromptRef, type SendExtras } from './composer-commands';
import { useComposerDraft } from './composer-draft';
import { cx, IconButton, Kbd } from './ui';

export function Composer({
  busy,
  running,
  onSend,
  onStop,
  autoFocus,
  conversationId,
}: {
  busy: boolean;
  running: boolean;
  onSend: (text: string, extras?: SendExtras) => Promise<boolean>;
  onStop?: () => void;
  autoFocus?: boolean;
  /** The conversation whose servers' prompts (`/`) and resources (`@`) the composer offers; none on a new chat. */
  conversationId?: string;
}) {
  const [text, setText] = useState('');
  const ref = useRef<HTMLTextAreaElement>(null);
  const blocked = busy || running;
  const draft = useComposerDraft();
  const menus = useComposerMenus({
    conversationId,
    text,
    setText,
    focusText: () => requestAnimationFrame(() => ref.current?.focus()),
    onRunPrompt: (prompt: PromptRef) => (blocked ? Promise.resolve(false) : onSend('', { prompt })),
  });

  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    el.style.height = 'auto';
    if (text) el.style.height = `${Math.min(el.scrollHeight, 240)}px`;
  }, [text]);

  // An example from the empty chat lands here, ready to edit or send.
  useEffect(
    () =>
      draft?.register((value) => {
        setText(value);
        requestAnimationFrame(() => {
          const el = ref.current;
          if (!el) return;
          el.focus();
          el.setSelectionRange(value.length, value.length);
        });
      }),
    [draft],
  );

  async function send() {
    const value = text.trim();
    const attachments = menus.attachments;
    if ((!value && attachments.length === 0) || blocked) return;
    if (await onSend(value, attachments.length ? { attachments } : undefined)) {
      setText('');
      menus.clearAttachments();
    }
  }

  // The menu's own forms (a prompt's arguments, a template's variables) sit beside the composer's
  // form, not inside it: a nested form's submit button submitted the page natively (a reload).
  return (
    <div className="relative mx-auto w-full max-w-3xl">
      {menus.popover && (
        <div
          className={cx(
            'absolute inset-x-0 bottom-full z-20 mb-2 overflow-hidden',
            'rounded-card border border-border bg-surface-raised shadow-raised',
          )}
          data-testid="composer-menu"
        >
          {menus.popover}
        </div>
      )}
      {menus.chips}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void send();
        }}
      >
        <div
          className={cx(
            'flex items-end gap-2 rounded-composer border border-border-strong bg-surface p-2 pl-3 shadow-composer',
            'transition-[border-color,box-shadow] focus-within:border-focus focus-within:ring-3 focus-within:ring-focus/20',
          )}
        >
          <label htmlFor="composer" className="sr-only">
            Message
          </label>
          <textarea
            id="composer"
            ref={ref}
            rows={1}
            value={text}
            autoFocus={autoFocus}
            disabled={blocked}
            onChange={(e) => {
              setText(e.target.value);
              menus.onCaret(e.target.selectionStart);
            }}
            onSelect={(e) => menus.onCaret(e.currentTarget.selectionStart)}
            {...menus.textareaProps}
            onKeyDown={(e) => {
              if (menus.onKeyDown(e)) return;
              // Enter sends, Shift+Enter is a new line; never while an IME is composing.
              if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
                e.preventDefault();
                void send();
              }
            }}
            placeholder={running ? 'Waiting for the answer…' : 'Message Switchboard'}
            className={cx(
              // 16 px on phones: iOS zooms into smaller text on focus.
              'max-h-60 min-h-10 flex-1 resize-none bg-transparent py-2 text-base leading-6 text-fg md:text-[15px]',
              'placeholder:text-faint focus-visible:outline-none disabled:cursor-not-allowed disabled:text-faint',
            )}
          />
          {running && onStop ? (
            <IconButton
              icon={Square}
              label="Stop"
              variant="secondary"
              size="md"
              round
              onClick={onStop}
              className="[&_svg]:size-3.5 [&_svg]:fill-current"
            />
          ) : (
            <IconButton
              type="submit"
              icon={ArrowUp}
              label="Send"
              variant="primary"
              size="md"
              round
              disabled={blocked || (!text.trim() && menus.attachments.length === 0)}
              // Nothing to send: a quiet grey circle rather than a faded accent one.
              className="disabled:bg-surface-hover disabled:text-faint disabled:opacity-100 disabled:shadow-none"
            />
          )}
        </div>
      </form>
      <p className="mt-2 hidden px-3 text-xs text-faint md:block">
        <Kbd>Enter</Kbd> to send · <Kbd>Shift</Kbd> + <Kbd>Enter</Kbd> for a new line
        {conversationId && (
          <>
            {' '}
            · <Kbd>/</Kbd> for your servers’ prompts · <Kbd>@</Kbd> to attach a resource
          </>
        )}
      </p>
    </div>
  );
}
