'use client';

import { ExternalLink } from 'lucide-react';

import { buttonClasses, Dialog } from '../ui';

/**
 * An image at full size in a modal dialog: Escape, the close button or a click beside it closes it,
 * and the focus goes back to the thumbnail that opened it (ui/dialog.tsx). `href`: where the
 * original can be opened on its own (none for a tool's image, which is only a data: URL).
 */
export function ImageLightbox({
  open,
  onClose,
  src,
  alt,
  title,
  details,
  href,
}: {
  open: boolean;
  onClose: () => void;
  src: string;
  alt: string;
  title: string;
  details?: string;
  href?: string;
}) {
  return (
    <Dialog
      open={open}
      onClose={onClose}
      title={title}
      description={details}
      size="media"
      footer={
        href ? (
          <a href={href} target="_blank" rel="noopener noreferrer" className={buttonClasses({ variant: 'secondary', size: 'sm' })}>
            <ExternalLink className="size-4" aria-hidden />
            Open the original
          </a>
        ) : undefined
      }
    >
      {/* Only while open: a closed lightbox does not fetch the full image. */}
      {open && (
        // eslint-disable-next-line @next/next/no-img-element -- a stored upload or a tool's data: URL, not an optimisable asset
        <img alt={alt} src={src} className="mx-auto max-h-[75dvh] w-auto max-w-full rounded-control pb-5" data-testid="lightbox-image" />
      )}
    </Dialog>
  );
}
