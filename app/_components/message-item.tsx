'use client';

import { Markdown } from './markdown';
import type { ContentBlock } from './types';

/** One stored message. User turns that only carry tool results are shown by their tool card. */
export function MessageItem({
  role,
  content,
  stopReason,
  renderToolCall,
}: {
  role: 'user' | 'assistant';
  content: unknown;
  stopReason?: string | null;
  renderToolCall?: (toolUseId: string) => React.ReactNode;
}) {
  const blocks: ContentBlock[] = Array.isArray(content) ? content : [{ type: 'text', text: String(content ?? '') }];
  if (role === 'user') {
    const text = blocks
      .filter((b) => b.type === 'text')
      .map((b) => (b as { text: string }).text)
      .join('\n');
    if (!text) return null;
    return (
      <div className="flex justify-end" data-testid="user-message">
        <div className="max-w-[85%] whitespace-pre-wrap break-words rounded-2xl bg-indigo-600 px-4 py-2.5 text-[15px] leading-6 text-white">
          {text}
        </div>
      </div>
    );
  }
  return (
    <div className="space-y-3" data-testid="assistant-message">
      {blocks.map((b, i) =>
        b.type === 'text' ? (
          <Markdown key={i} text={(b as { text: string }).text} />
        ) : b.type === 'tool_use' ? (
          <div key={i}>{renderToolCall?.((b as { id: string }).id) ?? <ToolUseNote name={(b as { name: string }).name} />}</div>
        ) : null,
      )}
      {stopReason === 'max_tokens' && <Note>The answer reached the length limit and was cut short.</Note>}
      {stopReason === 'cancelled' && <Note>Stopped.</Note>}
      {stopReason === 'refusal' && <Note>The model declined to continue this answer.</Note>}
      {stopReason === 'max_steps' && <Note>The turn reached its step limit; send a message to continue.</Note>}
    </div>
  );
}

function ToolUseNote({ name }: { name: string }) {
  return (
    <div className="rounded-lg border border-stone-200 bg-stone-100 px-3 py-2 font-mono text-xs text-stone-700">Tool call: {name}</div>
  );
}

export function Note({ children, tone = 'muted' }: { children: React.ReactNode; tone?: 'muted' | 'error' }) {
  return (
    <p
      className={tone === 'error' ? 'rounded-lg bg-red-50 px-3 py-2 text-sm text-red-800' : 'text-xs italic text-stone-500'}
      role={tone === 'error' ? 'alert' : undefined}
    >
      {children}
    </p>
  );
}
