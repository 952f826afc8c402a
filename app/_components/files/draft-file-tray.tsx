'use client';

import { FileText, X } from 'lucide-react';

import { cx } from '../ui';
import { fileDetails, formatBytes, ownFileHref } from './file-view';
import type { DraftFile } from './use-draft-files';

/**
 * The files of the message being written, inside the composer: an image as a thumbnail, a document
 * as a chip with its details, a file on its way up with its progress. Each can be taken off.
 */
export function DraftFileTray({ items, onRemove }: { items: DraftFile[]; onRemove: (key: string) => void }) {
  if (items.length === 0) return null;
  return (
    <ul className="flex flex-wrap gap-2 pb-2 pr-1 pt-1" aria-label="Attached files" data-testid="draft-files">
      {items.map((d) => {
        const name = d.status === 'ready' ? d.file.name : d.name;
        return (
          <li key={d.key} className="relative" data-testid="draft-file" data-status={d.status}>
            {d.status === 'uploading' ? (
              <Uploading name={d.name} size={d.size} loaded={d.loaded} />
            ) : d.file.kind === 'image' ? (
              // eslint-disable-next-line @next/next/no-img-element -- the person's own upload, served by our API
              <img
                src={ownFileHref(d.file.id)}
                alt={name}
                title={`${name} · ${fileDetails(d.file)}`}
                className="size-14 rounded-control border border-border bg-surface-sunken object-cover"
              />
            ) : (
              <Chip name={name} details={fileDetails(d.file)} />
            )}
            <button
              type="button"
              onClick={() => onRemove(d.key)}
              aria-label={`Remove ${name}`}
              title="Remove"
              className={cx(
                'absolute -right-1.5 -top-1.5 grid size-5 place-items-center rounded-full border border-border-strong',
                'bg-surface-raised text-muted shadow-card hover:bg-surface-hover hover:text-fg',
              )}
            >
              <X className="size-3" aria-hidden />
            </button>
          </li>
        );
      })}
    </ul>
  );
}

function Chip({ name, details, children }: { name: string; details: string; children?: React.ReactNode }) {
  return (
    <div className="flex h-14 w-52 max-w-full items-center gap-2 rounded-control border border-border bg-surface-sunken px-2.5">
      <FileText className="size-5 shrink-0 text-muted" aria-hidden />
      <div className="min-w-0 flex-1">
        <p className="truncate text-xs font-medium text-fg" title={name}>
          {name}
        </p>
        <p className="truncate text-xs text-muted">{details}</p>
        {children}
      </div>
    </div>
  );
}

function Uploading({ name, size, loaded }: { name: string; size: number; loaded: number }) {
  const percent = size > 0 ? Math.min(100, Math.round((loaded / size) * 100)) : 0;
  return (
    <Chip name={name} details={`Uploading… ${formatBytes(size)}`}>
      <div
        role="progressbar"
        aria-label={`Uploading ${name}`}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent}
        className="mt-1 h-1 overflow-hidden rounded-full bg-surface-hover"
      >
        <div className="h-full rounded-full bg-accent transition-[width]" style={{ width: `${percent}%` }} />
      </div>
    </Chip>
  );
}
