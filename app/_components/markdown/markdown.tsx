'use client';

import { memo } from 'react';
import ReactMarkdown, { type Components } from 'react-markdown';
import rehypeSanitize from 'rehype-sanitize';
import remarkGfm from 'remark-gfm';

import { CodeBlock } from '../ui/index';
import { HighlightedCode } from './highlighted-code';

type HastNode = { type: string; value?: string; tagName?: string; properties?: { className?: unknown }; children?: HastNode[] };

/** The text under a syntax-tree node: what a code block's copy button copies. */
function textOf(node: HastNode | undefined): string {
  if (!node) return '';
  if (node.type === 'text') return node.value ?? '';
  return (node.children ?? []).map(textOf).join('');
}

/** `language-ts` on the <code> inside a fenced block (the only class the sanitizer keeps). */
function languageOf(code: HastNode | undefined): string | undefined {
  const classes = code?.properties?.className;
  const list = Array.isArray(classes) ? classes : [];
  const match = list.map(String).find((c) => c.startsWith('language-'));
  return match?.slice('language-'.length);
}

// Anything the model or a tool wrote is untrusted: raw HTML is never rendered (react-markdown's
// default), what Markdown produces is sanitized, links open without a referrer, and images
// become links (the CSP would block remote images anyway; a link does not leak on render).
const components: Components = {
  a: ({ href, children }) => (
    <a href={href} target="_blank" rel="noopener noreferrer">
      {children}
    </a>
  ),
  img: ({ src, alt }) => (
    <a href={typeof src === 'string' ? src : undefined} target="_blank" rel="noopener noreferrer">
      [image{alt ? `: ${alt}` : ''}]
    </a>
  ),
  pre: ({ node }) => {
    const code = (node as HastNode | undefined)?.children?.find((c) => c.tagName === 'code');
    const text = textOf(code).replace(/\n$/, '');
    const lang = languageOf(code);
    return (
      <CodeBlock label={lang ?? 'code'} copyText={text}>
        <HighlightedCode code={text} lang={lang} />
      </CodeBlock>
    );
  },
  // A wide table scrolls inside its own box; the page never scrolls sideways.
  table: ({ children }) => (
    <div className="overflow-x-auto rounded-control border border-border">
      <table>{children}</table>
    </div>
  ),
};

const remarkPlugins = [remarkGfm];
const rehypePlugins = [rehypeSanitize];

/**
 * Memoized on the text: a stored message never changes, so a streamed delta elsewhere in a long
 * conversation does not parse every earlier answer again (see `npm run bench:ui`).
 */
export const Markdown = memo(function Markdown({ text }: { text: string }) {
  return (
    <div className="prose-chat break-words">
      <ReactMarkdown remarkPlugins={remarkPlugins} rehypePlugins={rehypePlugins} components={components}>
        {text}
      </ReactMarkdown>
    </div>
  );
});
