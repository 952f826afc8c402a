'use client';

import { Input } from '../ui/index';

/** The minimum sign-up and every password change ask for (the server checks it too). */
export const MIN_PASSWORD_LENGTH = 8;

/** A field for a new password: hidden, at least the minimum, offered to password managers as a new one. */
export function NewPasswordInput({ value, onChange }: { value: string; onChange: (value: string) => void }) {
  return (
    <Input
      type="password"
      autoComplete="new-password"
      required
      minLength={MIN_PASSWORD_LENGTH}
      value={value}
      onChange={(e) => onChange(e.target.value)}
    />
  );
}
