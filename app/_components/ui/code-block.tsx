'use client';

import { useLayoutEffect, useRef, useState } from 'react';

import { CopyButton } from './copy-button';
import { cx } from './cx';

export type CodeBlockProps = Omit<React.HTMLAttributes<HTMLPreElement>, 'title'> & {
  /** `danger` for an error a tool returned. */
  tone?: 'default' | 'danger';
  /** A caption above the block ("Arguments", "js"). */
  label?: React.ReactNode;
  /** Offers a copy button with this text. */
  copyText?: string;
  /** Long lines wrap (JSON, tool output) instead of scrolling sideways (source code). */
  wrap?: boolean;
  /** Taller content scrolls inside the block. */
  maxHeight?: 'sm' | 'md' | 'none';
  ref?: React.Ref<HTMLPreElement>;
};

const MAX_HEIGHT = { sm: 'max-h-60', md: 'max-h-80', none: '' } as const;
const TONE = {
  default: 'border-border bg-code-bg text-code-fg',
  danger: 'border-danger-border bg-danger-soft text-danger-text',
} as const;

/**
 * Whether the element's content is wider or taller than its box, checked when the content changes
 * (a streamed block grows) and when its box changes size.
 */
function useScrolls(ref: React.RefObject<HTMLElement | null>, content: React.ReactNode): boolean {
  const [scrolls, setScrolls] = useState(false);
  useLayoutEffect(() => {
    const el = ref.current;
    if (el) setScrolls(el.scrollWidth > el.clientWidth || el.scrollHeight > el.clientHeight);
  }, [ref, content]);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el || typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(() => setScrolls(el.scrollWidth > el.clientWidth || el.scrollHeight > el.clientHeight));
    observer.observe(el);
    return () => observer.disconnect();
  }, [ref]);
  return scrolls;
}

/** A name for a block a keyboard can reach: its caption when it is words, else what it is. */
function regionName(label: React.ReactNode): string {
  return typeof label === 'string' && label ? `${label} (scrollable)` : 'Code (scrollable)';
}

/**
 * Monospace text in a sunken box: code from the model, arguments, a tool's output. A block whose
 * content scrolls (a long line, more than its height) takes the keyboard focus, so it can be
 * scrolled with the arrow keys, with a name to announce; one that fits is no tab stop at all.
 */
export function CodeBlock({
  tone = 'default',
  label,
  copyText,
  wrap,
  maxHeight = 'none',
  className,
  children,
  ref,
  ...rest
}: CodeBlockProps) {
  const own = useRef<HTMLPreElement | null>(null);
  const scrolls = useScrolls(own, children);
  const setRef = (el: HTMLPreElement | null) => {
    own.current = el;
    if (typeof ref === 'function') ref(el);
    else if (ref) ref.current = el;
  };
  const pre = (
    <pre
      ref={setRef}
      {...(scrolls && { tabIndex: 0, role: 'region', 'aria-label': regionName(label) })}
      className={cx(
        'overflow-auto px-3.5 py-3 font-mono text-[13px] leading-6',
        wrap ? 'whitespace-pre-wrap break-words' : 'whitespace-pre',
        MAX_HEIGHT[maxHeight],
        !label && !copyText && cx('rounded-control border', TONE[tone]),
        className,
      )}
      {...rest}
    >
      {children}
    </pre>
  );
  if (!label && !copyText) return pre;
  return (
    <div className={cx('overflow-hidden rounded-control border', TONE[tone])}>
      <div className="flex h-9 items-center justify-between gap-2 border-b border-inherit pl-3.5 pr-1 max-md:h-11">
        <span className="truncate font-mono text-xs text-faint">{label}</span>
        {copyText !== undefined && <CopyButton text={copyText} label="Copy code" />}
      </div>
      {pre}
    </div>
  );
}
