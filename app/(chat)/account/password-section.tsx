'use client';

import { KeyRound } from 'lucide-react';
import { useState } from 'react';

import { api, ApiError } from '@/app/_components/api';
import { NewPasswordInput } from '@/app/_components/auth/new-password-input';
import { Button, CardBody, CardFooter, Field, Input, Notice } from '@/app/_components/ui';

import { Section } from './ui';

/** Change password: current + new (twice); every other session ends, this one stays. */
export function PasswordSection() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [repeat, setRepeat] = useState('');
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ kind: 'error' | 'success'; text: string } | null>(null);

  async function submit(e: React.FormEvent) {
    e.preventDefault();
    if (next !== repeat) return setResult({ kind: 'error', text: 'The two new passwords differ. Type the same one twice.' });
    setBusy(true);
    setResult(null);
    try {
      const { endedSessions } = await api<{ endedSessions: number }>('/api/account/password', {
        method: 'POST',
        body: { currentPassword: current, newPassword: next },
      });
      setCurrent('');
      setNext('');
      setRepeat('');
      const others = endedSessions === 1 ? '1 other session was' : `${endedSessions} other sessions were`;
      setResult({ kind: 'success', text: `Password changed. ${others} signed out.` });
    } catch (err) {
      setResult({ kind: 'error', text: err instanceof ApiError ? err.message : 'Could not change the password.' });
    } finally {
      setBusy(false);
    }
  }

  return (
    <Section id="password-heading" title="Password" icon={KeyRound}>
      <form onSubmit={submit}>
        <CardBody className="space-y-4 pb-4">
          <Field id="current-password" label="Current password">
            <Input type="password" autoComplete="current-password" required value={current} onChange={(e) => setCurrent(e.target.value)} />
          </Field>
          <Field id="new-password" label="New password" hint="At least 8 characters. Every other signed-in browser will be signed out.">
            <NewPasswordInput value={next} onChange={setNext} />
          </Field>
          <Field id="repeat-password" label="New password again">
            <NewPasswordInput value={repeat} onChange={setRepeat} />
          </Field>
          {result &&
            (result.kind === 'error' ? (
              <Notice tone="error">{result.text}</Notice>
            ) : (
              <Notice tone="success" role="status">
                {result.text}
              </Notice>
            ))}
        </CardBody>
        <CardFooter>
          <Button type="submit" variant="primary" loading={busy}>
            Change password
          </Button>
        </CardFooter>
      </form>
    </Section>
  );
}
