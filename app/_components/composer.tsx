'use client';

import { useEffect, useRef, useState } from 'react';

export function Composer({
  busy,
  running,
  onSend,
  onStop,
  autoFocus,
}: {
  busy: boolean;
  running: boolean;
  onSend: (text: string) => Promise<boolean>;
  onStop?: () => void;
  autoFocus?: boolean;
}) {
  const [text, setText] = useState('');
  const ref = useRef<HTMLTextAreaElement>(null);
  const blocked = busy || running;

  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    el.style.height = 'auto';
    if (text) el.style.height = `${Math.min(el.scrollHeight, 240)}px`;
  }, [text]);

  async function send() {
    const value = text.trim();
    if (!value || blocked) return;
    if (await onSend(value)) setText('');
  }

  return (
    <form
      className="mx-auto w-full max-w-3xl"
      onSubmit={(e) => {
        e.preventDefault();
        void send();
      }}
    >
      <div
        className={[
          'flex items-end gap-2 rounded-2xl border border-stone-300',
          'bg-white p-2 shadow-sm focus-within:border-indigo-500 focus-within:ring-2 focus-within:ring-indigo-100',
        ].join(' ')}
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
          onChange={(e) => setText(e.target.value)}
          onKeyDown={(e) => {
            // Enter sends, Shift+Enter is a new line; never while an IME is composing.
            if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
              e.preventDefault();
              void send();
            }
          }}
          placeholder={running ? 'Waiting for the answer…' : 'Message Switchboard'}
          className={[
            'max-h-60 min-h-10 flex-1 resize-none bg-transparent px-2',
            'py-2 text-[15px] leading-6 outline-none disabled:cursor-not-allowed disabled:text-stone-400',
          ].join(' ')}
        />
        {running && onStop ? (
          <button
            type="button"
            onClick={onStop}
            className="rounded-xl bg-stone-800 px-4 py-2 text-sm font-semibold text-white hover:bg-stone-900"
          >
            Stop
          </button>
        ) : (
          <button
            type="submit"
            disabled={blocked || !text.trim()}
            className="rounded-xl bg-indigo-600 px-4 py-2 text-sm font-semibold text-white hover:bg-indigo-700 disabled:opacity-40"
          >
            Send
          </button>
        )}
      </div>
      <p className="mt-1.5 px-2 text-xs text-stone-500">Enter to send · Shift+Enter for a new line</p>
    </form>
  );
}
