'use client';

import { History } from 'lucide-react';

import { Disclosure } from '../ui/index';

/**
 * Where the oldest messages were summarized to make room in the model's window. The messages
 * above stay as they were; from here on the model reads the summary in their place, which the
 * person can open and read too.
 */
export function SummaryMark({ text }: { text: string }) {
  return (
    <div className="flex items-start gap-3" data-testid="summary-mark">
      <span className="mt-[11px] h-px flex-1 bg-border" aria-hidden />
      <Disclosure
        className="max-w-[80%] rounded-card border border-border bg-surface-sunken px-3 py-2"
        summary={
          <span className="flex items-center gap-1.5 text-[13px] font-medium text-muted">
            <History className="size-3.5 shrink-0" aria-hidden />
            Earlier messages summarized
          </span>
        }
        contentClassName="space-y-2 text-[13px] leading-6 text-muted"
      >
        <p className="text-faint">
          To stay within the model’s context window, it now reads this summary instead of the messages above. They are all still here.
        </p>
        <p className="max-h-80 overflow-y-auto whitespace-pre-wrap break-words">{text}</p>
      </Disclosure>
      <span className="mt-[11px] h-px flex-1 bg-border" aria-hidden />
    </div>
  );
}
