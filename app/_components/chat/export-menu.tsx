'use client';

import { Download, FileJson, FileText } from 'lucide-react';
import { useEffect, useId, useRef, useState } from 'react';

import { cx } from '../ui/index';

const FORMATS = [
  { format: 'md', label: 'Markdown', hint: 'to read or paste', icon: FileText },
  { format: 'json', label: 'JSON', hint: 'for programs', icon: FileJson },
] as const;

/**
 * "Export" in the conversation's header: a small list of the two downloads of
 * `GET /api/conversations/:id/export` (a disclosure, not an ARIA menu: two plain links that Tab
 * reaches). Escape or a click elsewhere closes it; Escape gives the focus back to the button.
 */
export function ExportMenu({ conversationId, className }: { conversationId: string; className?: string }) {
  const [open, setOpen] = useState(false);
  const listId = useId();
  const root = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (!open) return;
    const onPointer = (e: PointerEvent) => {
      if (!root.current?.contains(e.target as Node)) setOpen(false);
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape') return;
      setOpen(false);
      button.current?.focus();
    };
    document.addEventListener('pointerdown', onPointer);
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('pointerdown', onPointer);
      document.removeEventListener('keydown', onKey);
    };
  }, [open]);
  return (
    <div ref={root} className={cx('relative', className)} data-testid="export-menu">
      <button
        ref={button}
        type="button"
        aria-expanded={open}
        aria-controls={listId}
        onClick={() => setOpen((o) => !o)}
        aria-label="Export"
        title="Export"
        className={cx(
          'inline-flex h-8 shrink-0 items-center gap-1.5 rounded-control px-2.5 text-[13px] font-medium text-muted transition-colors',
          'hover:bg-surface-hover hover:text-fg max-md:h-10',
        )}
      >
        <Download className="size-4" aria-hidden />
        <span className="max-md:hidden">Export</span>
      </button>
      <ul
        id={listId}
        hidden={!open}
        aria-label="Export this conversation as"
        className="absolute right-0 top-full z-20 mt-1 w-56 rounded-card border border-border bg-surface-raised p-1 shadow-raised"
      >
        {FORMATS.map(({ format, label, hint, icon: Icon }) => (
          <li key={format}>
            <a
              href={`/api/conversations/${encodeURIComponent(conversationId)}/export?format=${format}`}
              download
              onClick={() => setOpen(false)}
              className="flex items-center gap-2.5 rounded-control px-2.5 py-2 text-sm text-fg hover:bg-surface-hover max-md:py-2.5"
            >
              <Icon className="size-4 shrink-0 text-muted" aria-hidden />
              <span>
                {label} <span className="text-xs text-muted">— {hint}</span>
              </span>
            </a>
          </li>
        ))}
      </ul>
    </div>
  );
}
