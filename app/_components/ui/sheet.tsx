'use client';

import { X } from 'lucide-react';
import { useId } from 'react';

import { cx } from './cx';
import { IconButton } from './icon-button';
import { useModalDialog } from './use-modal-dialog';

export type SheetProps = {
  open: boolean;
  /** Escape, the close button, or a click on the backdrop. */
  onClose: () => void;
  title: React.ReactNode;
  description?: React.ReactNode;
  /** Beside the title (a count). */
  badges?: React.ReactNode;
  children: React.ReactNode;
  className?: string;
  'data-testid'?: string;
};

/**
 * A panel that slides over the page from the right on a desktop and takes the whole screen on a
 * phone. Built on the native modal <dialog>, like Dialog: the page behind is inert, Escape closes
 * it, and the focus goes back to whatever opened it.
 */
export function Sheet({ open, onClose, title, description, badges, children, className, ...rest }: SheetProps) {
  // The heading, not the first control: reading starts at the top and nothing toggles by accident.
  const dialogProps = useModalDialog(open, onClose, '[data-sheet-title]');
  const titleId = useId();

  return (
    <dialog
      {...dialogProps}
      aria-labelledby={titleId}
      data-testid={rest['data-testid']}
      className={cx(
        // Phone: the whole screen. Desktop: a column on the right, the conversation still in view.
        'fixed inset-0 m-0 h-dvh max-h-none w-full max-w-none border-0 bg-surface-raised p-0 text-fg',
        'md:left-auto md:w-[28rem] md:border-l md:border-border md:shadow-raised',
        'backdrop:bg-overlay open:flex open:flex-col open:animate-sheet-in',
        className,
      )}
    >
      <div
        className={cx(
          'flex shrink-0 items-start gap-3 border-b border-border px-4 pb-3 md:px-5 md:pt-4',
          'pt-[max(env(safe-area-inset-top),0.75rem)]',
        )}
      >
        <div className="min-w-0 flex-1">
          <div className="flex flex-wrap items-center gap-x-2 gap-y-1">
            <h2 id={titleId} data-sheet-title tabIndex={-1} className="text-base font-semibold leading-7 outline-none">
              {title}
            </h2>
            {badges}
          </div>
          {description && <div className="mt-0.5 text-[13px] leading-5 text-muted">{description}</div>}
        </div>
        <IconButton icon={X} label="Close" onClick={onClose} className="-mr-1.5" />
      </div>
      <div className="min-h-0 flex-1 overflow-y-auto overscroll-contain px-4 pb-[max(env(safe-area-inset-bottom),1rem)] pt-4 md:px-5">
        {children}
      </div>
    </dialog>
  );
}
