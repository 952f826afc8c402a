'use client';

import { Monitor, Moon, Sun, type LucideIcon } from 'lucide-react';

import { cx } from '../ui/cx';
import type { ThemePreference } from './preference';
import { useTheme } from './theme-provider';

const OPTIONS: { value: ThemePreference; label: string; icon: LucideIcon }[] = [
  { value: 'system', label: 'System', icon: Monitor },
  { value: 'light', label: 'Light', icon: Sun },
  { value: 'dark', label: 'Dark', icon: Moon },
];

/**
 * System / Light / Dark as three radio buttons drawn as one segmented control: native radios
 * give arrow-key movement and a "Theme" group to screen readers without any script of ours.
 */
export function ThemeToggle({ className }: { className?: string }) {
  const { preference, setPreference } = useTheme();
  return (
    <fieldset className={cx('inline-flex rounded-control border border-border bg-surface-sunken p-0.5', className)}>
      <legend className="sr-only">Theme</legend>
      {OPTIONS.map(({ value, label, icon: Icon }) => (
        <label
          key={value}
          title={label}
          className={cx(
            'relative flex size-8 items-center justify-center rounded-[calc(var(--radius-control)-2px)] text-faint transition-colors',
            'hover:text-fg has-checked:bg-surface has-checked:text-fg has-checked:shadow-card',
            'has-focus-visible:outline-2 has-focus-visible:outline-focus max-md:size-10',
          )}
        >
          {/* The radio covers the whole segment, so a tap anywhere on it (and a test's click) hits it. */}
          <input
            type="radio"
            name="theme"
            value={value}
            aria-label={label}
            checked={preference === value}
            onChange={() => setPreference(value)}
            className="absolute inset-0 cursor-pointer appearance-none rounded-[inherit] focus-visible:outline-none"
          />
          <Icon className="pointer-events-none size-4" aria-hidden />
        </label>
      ))}
    </fieldset>
  );
}
