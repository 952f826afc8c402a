'use client';

import { useEffect, useId, useRef, useState } from 'react';

import { Button, cx, Notice } from '../ui';

/**
 * Edits one of the person's sent messages in place. Save & send starts a new branch from the
 * message before it (the old one stays, a version away); Cancel or Esc puts the message back.
 * `onSave` answers with an error to show here (the server refused), or null when it was sent.
 */
export function MessageEditor({
  initial,
  blockedReason,
  onSave,
  onCancel,
}: {
  initial: string;
  blockedReason: string | null;
  onSave: (text: string) => Promise<string | null>;
  onCancel: () => void;
}) {
  const [text, setText] = useState(initial);
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const ref = useRef<HTMLTextAreaElement>(null);
  const id = useId();

  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    el.focus();
    el.setSelectionRange(el.value.length, el.value.length);
  }, []);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    el.style.height = 'auto';
    el.style.height = `${Math.min(el.scrollHeight, 320)}px`;
  }, [text]);

  const empty = !text.trim();
  async function save() {
    if (empty || saving || blockedReason) return;
    setSaving(true);
    setError(null);
    const failed = await onSave(text.trim());
    // On success this editor is gone (the new branch replaces the message).
    if (failed) {
      setError(failed);
      setSaving(false);
    }
  }

  return (
    <form
      className="ml-auto w-full max-w-[85%] space-y-2 md:max-w-[75%]"
      data-testid="message-editor"
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <label htmlFor={id} className="sr-only">
        Edit your message
      </label>
      <textarea
        id={id}
        ref={ref}
        value={text}
        rows={2}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            e.preventDefault();
            onCancel();
          } else if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
            // As in the composer: Enter sends, Shift+Enter is a new line.
            e.preventDefault();
            void save();
          }
        }}
        className={cx(
          'block max-h-80 w-full resize-none rounded-bubble border border-border-strong bg-surface px-4 py-2.5',
          'text-base leading-7 text-fg focus-visible:border-focus focus-visible:outline-none',
          'focus-visible:ring-3 focus-visible:ring-focus/20',
        )}
      />
      {error && <Notice tone="error">{error}</Notice>}
      {blockedReason && !error && <p className="text-right text-[13px] text-muted">{blockedReason}</p>}
      <div className="flex flex-wrap items-center justify-end gap-2">
        <span className="mr-auto hidden text-xs text-faint md:inline">Esc to cancel</span>
        <Button size="sm" variant="ghost" onClick={onCancel}>
          Cancel
        </Button>
        <Button size="sm" variant="primary" type="submit" loading={saving} disabled={empty || blockedReason !== null}>
          Save &amp; send
        </Button>
      </div>
    </form>
  );
}
