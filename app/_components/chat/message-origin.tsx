'use client';

import { AppWindow, FileText, Image as ImageIcon, SquareSlash } from 'lucide-react';

import type { ContentBlock, MessageView } from '../types';
import { CodeBlock, Disclosure } from '../ui/index';

/**
 * What a server put into the conversation, marked as such: a prompt's messages say which server
 * and prompt they came from, and attached resources are compact cards (URI, server, size) that
 * open to the text the model read.
 */

export type MessageOrigin = NonNullable<MessageView['origin']>;

/** "From Docs: summarize" above a prompt's message. */
export function PromptMark({ origin }: { origin: Extract<MessageOrigin, { kind: 'prompt' }> }) {
  return (
    <p className="flex items-center gap-1.5 text-xs text-faint" data-testid="prompt-origin">
      <SquareSlash className="size-3.5 shrink-0" aria-hidden />
      <span>
        From {origin.serverName}: <span className="font-medium text-muted">{origin.name}</span>
      </span>
    </p>
  );
}

/**
 * What interactive views told the model before the person's message (MCP Apps): not the person's
 * words, so no bubble — a line naming each view's server and tool, opening to the text the model read.
 */
export function ViewContextNote({ origin, blocks }: { origin: Extract<MessageOrigin, { kind: 'view_context' }>; blocks: ContentBlock[] }) {
  const text = blocks.flatMap((b) => (b.type === 'text' && typeof b.text === 'string' ? [b.text] : [])).join('\n');
  const names = origin.views.map((v) => `${v.serverName}’s ${v.tool}`).join(', ');
  return (
    <div className="w-full max-w-[85%] md:max-w-[75%]" data-testid="view-context-note">
      <Disclosure
        summary={
          <span className="flex items-center gap-1.5 text-xs text-faint">
            <AppWindow className="size-3.5 shrink-0" aria-hidden />
            <span>
              Shared with the model by the interactive view{origin.views.length > 1 ? 's' : ''} of {names}
            </span>
          </span>
        }
        summaryClassName="items-center"
      >
        <CodeBlock wrap maxHeight="sm">
          {text}
        </CodeBlock>
      </Disclosure>
    </div>
  );
}

/** The resources attached to a message, each a card with its server; the text the model got opens below. */
export function AttachedResources({ origin, blocks }: { origin: Extract<MessageOrigin, { kind: 'resources' }>; blocks: ContentBlock[] }) {
  return (
    <ul className="flex w-full max-w-[85%] flex-col items-end gap-1.5 md:max-w-[75%]" aria-label="Attached resources">
      {origin.resources.map((r, i) => {
        const text = documentText(blocks, r.uri);
        const image = text === null && r.mimeType?.startsWith('image/');
        const Icon = image ? ImageIcon : FileText;
        const head = (
          <span className="flex min-w-0 items-center gap-2">
            <Icon className="size-4 shrink-0 text-muted" aria-hidden />
            <span className="min-w-0">
              <span className="block truncate font-mono text-xs text-fg" title={r.uri}>
                {r.uri}
              </span>
              <span className="block text-xs text-faint">
                from {r.serverName}
                {r.chars !== undefined && r.chars > 0 && ` · ${r.chars.toLocaleString('en')} characters`}
                {r.truncated && ' · the model read the first part'}
              </span>
            </span>
          </span>
        );
        return (
          <li
            key={`${r.serverId}/${r.uri}/${i}`}
            className="w-full rounded-card border border-border bg-surface px-3 py-2 shadow-card"
            data-testid="attached-resource"
          >
            {text === null ? (
              head
            ) : (
              <Disclosure summary={head} summaryClassName="items-center">
                <CodeBlock wrap maxHeight="sm">
                  {text}
                </CodeBlock>
              </Disclosure>
            )}
          </li>
        );
      })}
    </ul>
  );
}

/** The text of the document blocks made from one resource (their title is its URI), or null. */
function documentText(blocks: ContentBlock[], uri: string): string | null {
  const texts = blocks.flatMap((b) => {
    if (b.type !== 'document' || b.title !== uri) return [];
    const source = b.source as { type?: string; data?: unknown } | undefined;
    return source?.type === 'text' && typeof source.data === 'string' ? [source.data] : [];
  });
  return texts.length ? texts.join('\n\n') : null;
}
