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

/** Monospace text in a sunken box: code from the model, arguments, a tool's output. */
export function CodeBlock({ tone = 'default', label, copyText, wrap, maxHeight = 'none', className, children, ...rest }: CodeBlockProps) {
  const pre = (
    <pre
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
