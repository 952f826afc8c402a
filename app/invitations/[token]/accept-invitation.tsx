'use client';

import { Building2 } from 'lucide-react';
import { useState } from 'react';

import { api, ApiError } from '@/app/_components/api';
import { Button, buttonClasses, Card, CardBody, CardFooter, CardHeader, Notice } from '@/app/_components/ui';

/** Join by the link, once pressed; then on to the account page, where the organization is listed. */
export function AcceptInvitation({ token }: { token: string }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const [joined, setJoined] = useState<string | null>(null);

  async function join() {
    setBusy(true);
    setError('');
    try {
      const res = await api<{ name: string }>(`/api/invitations/${encodeURIComponent(token)}/accept`, { method: 'POST' });
      setJoined(res.name);
    } catch (err) {
      setError(err instanceof ApiError ? err.message : 'Could not join. Try again.');
    } finally {
      setBusy(false);
    }
  }

  return (
    <Card as="section" aria-labelledby="invite-heading">
      <CardHeader
        className="pt-4"
        title={
          <h1 id="invite-heading" className="flex items-center gap-2 text-base">
            <Building2 className="size-4 shrink-0 text-muted" aria-hidden />
            Join an organization
          </h1>
        }
        description="You were invited to join an organization as a member. Everything you own stays yours."
      />
      <CardBody className="space-y-3 pb-2">
        {joined !== null && (
          <Notice tone="success" role="status">
            You are now a member of {joined || 'the organization'}.
          </Notice>
        )}
        {error && (
          <Notice tone="error" role="alert">
            {error}
          </Notice>
        )}
      </CardBody>
      <CardFooter>
        {joined === null ? (
          <Button variant="primary" onClick={join} disabled={busy}>
            Join
          </Button>
        ) : (
          <a href="/account" className={buttonClasses()}>
            Go to your account
          </a>
        )}
      </CardFooter>
    </Card>
  );
}
