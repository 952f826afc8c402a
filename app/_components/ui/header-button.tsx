import type { LucideIcon } from 'lucide-react';

import { cx } from './cx';

export type HeaderButtonProps = Omit<React.ButtonHTMLAttributes<HTMLButtonElement>, 'onClick' | 'type'> & {
  icon: LucideIcon;
  /** The visible word beside the icon. */
  text: string;
  /** Whether the dialog this button opens is open (aria-expanded). */
  open: boolean;
  onOpen: () => void;
  /** Icon only on a phone: the word is hidden there (children stay), so give the button an aria-label. */
  iconOnlyOnPhone?: boolean;
  /** Drawn as set (full-strength text) rather than muted. */
  emphasized?: boolean;
};

/** A button in the conversation's header that opens one of its dialogs (Tools, Instructions, Share). */
export function HeaderButton({
  icon: Icon,
  text,
  open,
  onOpen,
  iconOnlyOnPhone,
  emphasized,
  className,
  children,
  ...rest
}: HeaderButtonProps) {
  return (
    <button
      type="button"
      aria-haspopup="dialog"
      aria-expanded={open}
      onClick={onOpen}
      className={cx(
        'relative inline-flex h-8 shrink-0 items-center gap-1.5 rounded-control px-2.5 text-[13px] font-medium transition-colors',
        'hover:bg-surface-hover hover:text-fg max-md:h-10',
        emphasized ? 'text-fg' : 'text-muted',
        className,
      )}
      {...rest}
    >
      <Icon className="size-4" aria-hidden />
      {iconOnlyOnPhone ? <span className="max-md:hidden">{text}</span> : text}
      {children}
    </button>
  );
}
