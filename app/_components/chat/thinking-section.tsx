'use client';

import { Brain } from 'lucide-react';

import { Disclosure } from '../ui/index';

/**
 * The model's extended thinking, folded: it is how the answer came about, not the answer. Plain
 * text (the model's working, not a document), kept as it streams in; a redacted block says only
 * that it was redacted.
 */
export function ThinkingSection({ text, redacted = false, live = false }: { text?: string; redacted?: boolean; live?: boolean }) {
  if (redacted) {
    return (
      <p className="flex items-center gap-1.5 text-[13px] text-faint" data-testid="thinking-redacted">
        <Brain className="size-3.5 shrink-0" aria-hidden />
        Part of the thinking was redacted by the model provider.
      </p>
    );
  }
  return (
    <Disclosure
      className="rounded-card border border-border bg-surface-sunken px-3 py-2"
      summary={
        <span className="flex items-center gap-1.5 text-[13px] font-medium text-muted">
          <Brain className="size-3.5 shrink-0" aria-hidden />
          {live ? 'Thinking…' : 'Thinking'}
        </span>
      }
      contentClassName="max-h-80 overflow-y-auto whitespace-pre-wrap break-words text-[13px] leading-6 text-muted"
      data-testid="thinking-section"
    >
      {text}
    </Disclosure>
  );
}
