import { cx } from '../ui/cx';

/**
 * The app's mark: a patch cord bent into an S between two jacks. The drawing of public/icon.svg
 * (the favicon and home-screen icons are rendered from that file), flat: a gradient needs an id,
 * and a gradient inside a hidden copy of the logo would blank out the others.
 */
export function LogoMark({ className }: { className?: string }) {
  return (
    <svg viewBox="0 0 512 512" className={cx('shrink-0', className)} aria-hidden focusable="false">
      <rect width="512" height="512" rx="116" fill="#4f46e5" />
      <path
        d="M340 148H212a54 54 0 0 0 0 108h88a54 54 0 0 1 0 108H172"
        fill="none"
        stroke="#fff"
        strokeWidth="44"
        strokeLinecap="round"
        strokeLinejoin="round"
      />
      <circle cx="356" cy="148" r="42" fill="#fff" />
      <circle cx="356" cy="148" r="16" fill="#4f46e5" />
      <circle cx="156" cy="364" r="42" fill="#fff" />
      <circle cx="156" cy="364" r="16" fill="#4f46e5" />
    </svg>
  );
}

/** The mark with the name beside it. */
export function Logo({ className }: { className?: string }) {
  return (
    <span className={cx('inline-flex items-center gap-2 font-semibold tracking-tight text-fg', className)}>
      <LogoMark className="size-7" />
      Switchboard
    </span>
  );
}
