'use client';

import { X } from 'lucide-react';
import { useId } from 'react';

import { Button, type ButtonVariant } from './button';
import { cx } from './cx';
import { IconButton } from './icon-button';
import { useModalDialog } from './use-modal-dialog';

export type DialogProps = {
  open: boolean;
  /** Escape, the close button, a click on the backdrop, or the dialog's own buttons. */
  onClose: () => void;
  title: React.ReactNode;
  description?: React.ReactNode;
  children?: React.ReactNode;
  /** The action buttons, primary last (it sits on the right). */
  footer?: React.ReactNode;
  /** `lg` for a form with more in it (a server's fields, the Share options and links); `media` for an image at full size. */
  size?: 'md' | 'lg' | 'media';
  className?: string;
};

/**
 * A modal on the native <dialog>: showModal() makes the rest of the page inert (focus stays
 * inside) and Escape closes it; focus goes back to whatever had it before the dialog opened.
 */
// One width class at a time: two max-w-* classes on one element would be decided by the
// stylesheet's order, not by which was passed.
const WIDTHS = { md: 'max-w-md', lg: 'max-w-lg', media: 'max-w-[min(96vw,72rem)] sm:w-auto' } as const;

export function Dialog({ open, onClose, title, description, children, footer, size = 'md', className }: DialogProps) {
  // showModal() focuses the first focusable element (the close button); a dialog may name a better one.
  const dialogProps = useModalDialog(open, onClose, '[data-autofocus]');
  const titleId = useId();
  const descriptionId = useId();

  return (
    <dialog
      {...dialogProps}
      aria-labelledby={titleId}
      aria-describedby={description ? descriptionId : undefined}
      className={cx(
        'm-auto w-[calc(100%-2rem)] rounded-card border border-border bg-surface-raised p-0 text-fg shadow-raised',
        'backdrop:bg-overlay open:animate-dialog-in',
        WIDTHS[size],
        className,
      )}
    >
      <div className="flex items-start gap-3 px-5 pt-5">
        <div className="min-w-0 flex-1">
          <h2 id={titleId} className="text-base font-semibold leading-6 break-words">
            {title}
          </h2>
          {description && (
            <div id={descriptionId} className="mt-1.5 text-sm leading-6 text-muted">
              {description}
            </div>
          )}
        </div>
        <IconButton icon={X} label="Close" onClick={onClose} className="-mr-2 -mt-1" />
      </div>
      {children && <div className="px-5 pt-4">{children}</div>}
      {footer && <div className="flex flex-wrap justify-end gap-2 px-5 pb-5 pt-5">{footer}</div>}
    </dialog>
  );
}

export type ConfirmDialogProps = Omit<DialogProps, 'footer' | 'children'> & {
  confirmLabel: string;
  cancelLabel?: string;
  /** `danger` for what cannot be undone: then Cancel has the focus first. */
  tone?: Extract<ButtonVariant, 'primary' | 'danger'>;
  busy?: boolean;
  onConfirm: () => void;
  children?: React.ReactNode;
};

/** Asks before doing something: a title that is the question, what follows, Cancel and the action. */
export function ConfirmDialog({
  confirmLabel,
  cancelLabel = 'Cancel',
  tone = 'primary',
  busy,
  onConfirm,
  onClose,
  ...rest
}: ConfirmDialogProps) {
  return (
    <Dialog
      {...rest}
      onClose={onClose}
      footer={
        <>
          <Button variant="secondary" onClick={onClose} data-autofocus={tone === 'danger' || undefined}>
            {cancelLabel}
          </Button>
          <Button variant={tone} onClick={onConfirm} loading={busy} data-autofocus={tone !== 'danger' || undefined}>
            {confirmLabel}
          </Button>
        </>
      }
    />
  );
}
