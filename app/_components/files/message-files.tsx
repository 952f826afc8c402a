'use client';

import { FileText } from 'lucide-react';
import { useState } from 'react';

import { cx } from '../ui';
import { fileDetails, type FileHref, type FileView } from './file-view';
import { ImageLightbox } from './image-lightbox';

/**
 * The files a person sent with a message: images as thumbnails that open full size, documents as
 * chips (name, type, pages, size) that open the file. `href` says where the bytes are read: the
 * owner's API on their page, the share's own URL on a shared page.
 */
export function MessageFiles({ files, href }: { files: FileView[]; href: FileHref }) {
  if (files.length === 0) return null;
  const images = files.filter((f) => f.kind === 'image');
  const documents = files.filter((f) => f.kind !== 'image');
  return (
    <div className="flex max-w-[85%] flex-col items-end gap-1.5 md:max-w-[75%]" data-testid="message-files">
      {images.length > 0 && (
        <ul className="flex flex-wrap justify-end gap-1.5" aria-label="Attached images">
          {images.map((f) => (
            <li key={f.id}>
              <Thumbnail file={f} href={href(f.id)} />
            </li>
          ))}
        </ul>
      )}
      {documents.length > 0 && (
        <ul className="flex flex-wrap justify-end gap-1.5" aria-label="Attached documents">
          {documents.map((f) => (
            <li key={f.id}>
              <a
                href={href(f.id)}
                target="_blank"
                rel="noopener noreferrer"
                className={cx(
                  'flex w-60 max-w-full items-center gap-2.5 rounded-card border border-border bg-surface px-3 py-2 shadow-card',
                  'hover:border-border-strong hover:bg-surface-hover',
                )}
                data-testid="message-document"
              >
                <span className="grid size-8 shrink-0 place-items-center rounded-control bg-accent-soft text-accent-text">
                  <FileText className="size-4" aria-hidden />
                </span>
                <span className="min-w-0">
                  <span className="block truncate text-sm font-medium text-fg" title={f.name}>
                    {f.name}
                  </span>
                  <span className="block truncate text-xs text-muted">{fileDetails(f)}</span>
                </span>
              </a>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function Thumbnail({ file, href }: { file: FileView; href: string }) {
  const [open, setOpen] = useState(false);
  const details = fileDetails(file);
  return (
    <>
      <button
        type="button"
        onClick={() => setOpen(true)}
        className="block overflow-hidden rounded-card border border-border bg-surface-sunken"
        aria-label={`Open ${file.name} full size`}
        title={`${file.name} · ${details}`}
        data-testid="message-image"
      >
        {/* eslint-disable-next-line @next/next/no-img-element -- a stored upload served by our API */}
        <img
          src={href}
          alt={file.name}
          loading="lazy"
          width={file.width}
          height={file.height}
          className="h-32 w-auto max-w-60 object-cover md:h-40 md:max-w-72"
        />
      </button>
      <ImageLightbox
        open={open}
        onClose={() => setOpen(false)}
        src={href}
        alt={file.name}
        title={file.name}
        details={details}
        href={href}
      />
    </>
  );
}
