import type { RequestBlock, RequestMessage } from './types';

/**
 * The demo model reads documents (a resource the person attached arrives as a `document` block,
 * lib/chat/compose.ts): it quotes the first line of each one in the last user message, so a test
 * can see the resource reached the model.
 */

interface Document {
  title: string;
  firstLine: string;
}

function documentsOf(message: RequestMessage | undefined): Document[] {
  if (!message || message.role !== 'user' || typeof message.content === 'string') return [];
  return message.content.flatMap((block: RequestBlock) => {
    if (block.type !== 'document') return [];
    const source = block.source as { type?: unknown; data?: unknown; content?: unknown } | undefined;
    const text =
      source?.type === 'text' && typeof source.data === 'string'
        ? source.data
        : source?.type === 'content' && typeof source.content === 'string'
          ? source.content
          : '';
    const firstLine = text.split('\n').find((l) => l.trim()) ?? '';
    return [
      { title: typeof block.title === 'string' && block.title ? block.title : 'untitled', firstLine: firstLine.trim().slice(0, 200) },
    ];
  });
}

/** The answer about the documents of the last message, or null when it has none. */
export function describeDocuments(messages: RequestMessage[], userText: string): string | null {
  const documents = documentsOf(messages.at(-1));
  if (documents.length === 0) return null;
  const lines = [
    `This is the offline demo model. You attached ${documents.length === 1 ? 'a document' : `${documents.length} documents`}:`,
    '',
    ...documents.map((d) => `- ${d.title} begins: “${d.firstLine || '(no text)'}”`),
  ];
  if (userText.trim()) lines.push('', `You wrote: "${userText.trim()}"`);
  return lines.join('\n');
}
