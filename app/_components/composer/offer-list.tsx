'use client';

import { useEffect, useRef } from 'react';

import { Badge, cx, Spinner } from '../ui/index';

export interface OfferOption {
  key: string;
  title: string;
  /** A second line: the description, or the URI. */
  detail?: string;
  /** The server it comes from, shown as a quiet tag. */
  server: string;
  /** A short word on the right (e.g. "template", "2 arguments"). */
  note?: string;
}

/**
 * The list a composer menu shows above the text (the `/` prompts, the `@` resources): a listbox
 * the textarea drives with the arrow keys (`aria-activedescendant`), so typing keeps filtering.
 * A click chooses too. While the servers are asked it says so; a server that failed says why.
 */
export function OfferList({
  id,
  label,
  options,
  active,
  onChoose,
  onHover,
  loading,
  problems,
  empty,
}: {
  id: string;
  label: string;
  options: OfferOption[];
  active: number;
  onChoose: (index: number) => void;
  onHover: (index: number) => void;
  loading: boolean;
  problems: string[];
  empty: string;
}) {
  const list = useRef<HTMLUListElement>(null);
  useEffect(() => {
    list.current?.querySelector(`[data-index="${active}"]`)?.scrollIntoView({ block: 'nearest' });
  }, [active]);
  return (
    <div className="max-h-72 overflow-y-auto p-1.5">
      <p className="px-2 pb-1 pt-0.5 text-xs font-medium text-faint" id={`${id}-label`}>
        {label}
      </p>
      {options.length > 0 && (
        <ul ref={list} id={id} role="listbox" aria-labelledby={`${id}-label`} className="space-y-0.5">
          {options.map((o, i) => (
            <li
              key={o.key}
              id={`${id}-${i}`}
              data-index={i}
              role="option"
              aria-selected={i === active}
              // Keeps the focus in the textarea: the menu is driven from there.
              onMouseDown={(e) => e.preventDefault()}
              onClick={() => onChoose(i)}
              onMouseMove={() => i !== active && onHover(i)}
              className={cx(
                'flex cursor-pointer items-start gap-3 rounded-control px-2.5 py-2',
                i === active ? 'bg-accent-soft' : 'hover:bg-surface-hover',
              )}
            >
              <span className="min-w-0 flex-1">
                <span className={cx('block truncate text-sm font-medium', i === active ? 'text-accent-text' : 'text-fg')}>{o.title}</span>
                {o.detail && <span className="block truncate text-xs text-muted">{o.detail}</span>}
              </span>
              <span className="flex shrink-0 items-center gap-1.5 pt-0.5">
                {o.note && <span className="text-xs text-muted">{o.note}</span>}
                <Badge appearance="outline">{o.server}</Badge>
              </span>
            </li>
          ))}
        </ul>
      )}
      {loading && (
        <p className="flex items-center gap-2 px-2.5 py-2 text-sm text-muted">
          <Spinner /> Asking your servers…
        </p>
      )}
      {!loading && options.length === 0 && <p className="px-2.5 py-2 text-sm text-muted">{empty}</p>}
      {problems.map((p) => (
        <p key={p} className="px-2.5 py-1.5 text-xs text-danger-text">
          {p}
        </p>
      ))}
    </div>
  );
}
