'use client';

import { useEffect, useRef } from 'react';

/**
 * What Dialog and Sheet share: a native modal <dialog> kept in step with React's `open`.
 * showModal() makes the rest of the page inert and Escape closes it (through `onClose`, so the
 * dialog and `open` never disagree); a click on the backdrop closes it too; however it closes,
 * focus goes back where it was (if that element is still on the page). On opening, the element
 * matching `focusSelector` takes the focus instead of the first control.
 */
export function useModalDialog(open: boolean, onClose: () => void, focusSelector: string) {
  const ref = useRef<HTMLDialogElement>(null);
  const returnFocus = useRef<HTMLElement | null>(null);

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      returnFocus.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
      dialog.showModal();
      dialog.querySelector<HTMLElement>(focusSelector)?.focus();
    } else if (!open && dialog.open) {
      dialog.close();
    }
  }, [open, focusSelector]);

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    const onClosed = () => {
      const target = returnFocus.current;
      returnFocus.current = null;
      if (target?.isConnected) target.focus();
    };
    dialog.addEventListener('close', onClosed);
    return () => dialog.removeEventListener('close', onClosed);
  }, []);

  const dialogProps = {
    ref,
    onCancel: (e: React.SyntheticEvent<HTMLDialogElement>) => {
      e.preventDefault();
      onClose();
    },
    onClick: (e: React.MouseEvent<HTMLDialogElement>) => {
      if (e.target === e.currentTarget) onClose();
    },
  };
  return dialogProps;
}
