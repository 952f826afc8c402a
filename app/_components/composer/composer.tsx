'use client';

import { ArrowUp, Paperclip, Square, Upload, X } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';

import { DraftFileTray } from '../files/draft-file-tray';
import { draftKey, readDraft, writeDraft } from '../files/draft-store';
import { FILES_PER_MESSAGE } from '../files/file-view';
import { useDraftFiles } from '../files/use-draft-files';
import { useFileDrop } from '../files/use-file-drop';
import { cx, IconButton, Kbd, Notice } from '../ui/index';
import { useComposerMenus, type PromptRef, type SendExtras } from './composer-commands';
import { useComposerDraft } from './composer-draft';

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
  const picker = useRef<HTMLInputElement>(null);
  const blocked = busy || running;
  const draft = useComposerDraft();
  const files = useDraftFiles(FILES_PER_MESSAGE);
  const drop = useFileDrop(files.add);
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

  // The draft (text and stored files) is kept in this browser per conversation: read back once on
  // mount (not during render: the server has no storage), then saved as it changes.
  const key = draftKey(conversationId);
  const [restored, setRestored] = useState<string | null>(null);
  const { restore } = files;
  useEffect(() => {
    const saved = readDraft(localStorage, key);
    if (saved) {
      // Once per conversation, after hydration: the server render cannot know this browser's storage.
      // eslint-disable-next-line react-hooks/set-state-in-effect
      setText(saved.text);
      restore(saved.files);
    }
    setRestored(key);
  }, [key, restore]);
  useEffect(() => {
    if (restored === key) writeDraft(localStorage, key, { text, files: files.ready });
  }, [restored, key, text, files.ready]);

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

  const empty = !text.trim() && menus.attachments.length === 0 && files.ready.length === 0;
  async function send() {
    const value = text.trim();
    // Resources from the servers, then the files uploaded for this message (by id).
    const attachments = [...menus.attachments, ...files.ready.map((f) => ({ fileId: f.id }))];
    if (empty || blocked || files.uploading) return;
    if (await onSend(value, attachments.length ? { attachments, files: files.ready } : undefined)) {
      setText('');
      menus.clearAttachments();
      files.clear();
      // At once, not from the effect: the new-chat page goes to the conversation and may be gone by then.
      writeDraft(localStorage, key, { text: '', files: [] });
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
      {files.problems.length > 0 && (
        <ul className="mb-2 space-y-1.5" aria-label="Files not attached" data-testid="file-problems">
          {files.problems.map((p) => (
            <li key={p.key}>
              {/* The dismiss button in the corner: as a Notice action it would take a line of its own on a phone. */}
              <Notice tone="error" className="relative py-2 pr-11">
                {p.message}
                <IconButton icon={X} label="Dismiss" onClick={() => files.dismiss(p.key)} className="absolute right-1.5 top-1.5" />
              </Notice>
            </li>
          ))}
        </ul>
      )}
      {menus.chips}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void send();
        }}
      >
        <div
          {...drop.targetProps}
          className={cx(
            'relative rounded-composer border border-border-strong bg-surface p-2 pl-3 shadow-composer',
            'transition-[border-color,box-shadow] focus-within:border-focus focus-within:ring-3 focus-within:ring-focus/20',
          )}
          data-testid="composer-box"
        >
          {drop.over && (
            // Over the whole box while files are dragged onto it; pointer-events-none keeps the drop on the box.
            <div
              className={cx(
                'pointer-events-none absolute inset-0 z-10 grid place-items-center rounded-composer border-2 border-dashed border-accent',
                'bg-accent-soft/95 text-sm font-medium text-accent-text',
              )}
              data-testid="drop-target"
            >
              <span className="flex items-center gap-2">
                <Upload className="size-4" aria-hidden />
                Drop files to attach them
              </span>
            </div>
          )}
          <DraftFileTray items={files.items} onRemove={files.remove} />
          <div className="flex items-end gap-2">
            <input
              ref={picker}
              type="file"
              multiple
              hidden
              onChange={(e) => {
                files.add(Array.from(e.target.files ?? []));
                e.target.value = '';
              }}
              data-testid="file-input"
            />
            <IconButton
              icon={Paperclip}
              label="Attach files"
              size="md"
              round
              onClick={() => picker.current?.click()}
              disabled={blocked}
              className="-ml-1.5"
            />
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
              onPaste={(e) => {
                // A screenshot or a copied file: attached, not pasted as text.
                const pasted = Array.from(e.clipboardData.files);
                if (pasted.length === 0) return;
                e.preventDefault();
                files.add(pasted);
              }}
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
                // While a file is still uploading the message waits for it: sending would leave it out.
                disabled={blocked || empty || files.uploading}
                title={files.uploading ? 'Waiting for the files to finish uploading' : undefined}
                // Nothing to send: a quiet grey circle rather than a faded accent one.
                className="disabled:bg-surface-hover disabled:text-faint disabled:opacity-100 disabled:shadow-none"
              />
            )}
          </div>
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
