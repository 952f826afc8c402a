'use client';

import { Trash2, TriangleAlert } from 'lucide-react';
import { useRouter } from 'next/navigation';
import { useState } from 'react';

import { api, ApiError } from '@/app/_components/api';
import { Button, CardBody, CardFooter, Field, Input, Notice } from '@/app/_components/ui';

import { Section } from './ui';

/** Delete the account: the person types their email to confirm. */
export function DeleteSection({ email }: { email: string }) {
  const router = useRouter();
  const [typed, setTyped] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const matches = typed.trim().toLowerCase() === email.toLowerCase();

  async function submit(e: React.FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError('');
    try {
      await api('/api/account', { method: 'DELETE', body: { confirm: typed } });
      router.replace('/sign-in');
      router.refresh();
    } catch (err) {
      setError(err instanceof ApiError ? err.message : 'Could not delete the account.');
      setBusy(false);
    }
  }

  return (
    <Section
      id="delete-heading"
      title="Delete account"
      icon={TriangleAlert}
      tone="danger"
      description={
        <>
          This deletes your account, every conversation with its messages and tool calls, your notes, sessions and access tokens.{' '}
          <strong className="font-semibold text-fg">It cannot be undone</strong>; download your data first if you want a copy.
        </>
      }
    >
      <form onSubmit={submit}>
        <CardBody className="space-y-4 pb-4">
          <Field
            id="delete-confirm"
            label={
              <>
                Type <strong className="font-semibold">{email}</strong> to confirm
              </>
            }
          >
            <Input type="email" autoComplete="off" required spellCheck={false} value={typed} onChange={(e) => setTyped(e.target.value)} />
          </Field>
          {error && <Notice tone="error">{error}</Notice>}
        </CardBody>
        <CardFooter className="border-danger-border">
          <Button type="submit" variant="danger" icon={Trash2} loading={busy} disabled={!matches}>
            Delete my account
          </Button>
        </CardFooter>
      </form>
    </Section>
  );
}
