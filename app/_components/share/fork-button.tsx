'use client';

import { GitBranchPlus } from 'lucide-react';
import { useRouter } from 'next/navigation';
import { useState } from 'react';

import { api, ApiError } from '@/app/_components/api';
import { Button } from '@/app/_components/ui';

/** Copies the shared conversation into the reader's account and opens the copy. */
export function ForkButton({ token, onError, className }: { token: string; onError: (message: string) => void; className?: string }) {
  const router = useRouter();
  const [busy, setBusy] = useState(false);

  async function fork() {
    setBusy(true);
    onError('');
    try {
      const { conversationId } = await api<{ conversationId: string }>(`/api/share/${encodeURIComponent(token)}/fork`, {
        method: 'POST',
        body: {},
      });
      router.push(`/c/${conversationId}`);
    } catch (err) {
      onError(err instanceof ApiError ? err.message : 'Could not copy the conversation into your account.');
      setBusy(false);
    }
  }

  return (
    <Button variant="primary" size="sm" icon={GitBranchPlus} loading={busy} onClick={() => void fork()} className={className}>
      Continue in your account
    </Button>
  );
}
