'use client';

import { useRouter } from 'next/navigation';
import { useState } from 'react';

import { api, ApiError } from './api';
import { EmptyConversation } from './chat-view';
import { Composer } from './composer';

/** The empty chat: the first message creates the conversation, then opens it mid-answer. */
export function NewConversation({ modelLabel }: { modelLabel: string }) {
  const router = useRouter();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');

  async function send(text: string) {
    setBusy(true);
    setError('');
    let created: string | undefined;
    try {
      const conversation = await api<{ id: string }>('/api/conversations', { method: 'POST', body: {} });
      created = conversation.id;
      await api(`/api/conversations/${conversation.id}/messages`, { method: 'POST', body: { text } });
      router.push(`/c/${conversation.id}`);
      router.refresh();
      return true;
    } catch (err) {
      // Do not leave an empty conversation behind when its first message was refused.
      if (created) await api(`/api/conversations/${created}`, { method: 'DELETE' }).catch(() => {});
      setError(err instanceof ApiError ? err.message : 'Could not start the conversation.');
      setBusy(false);
      return false;
    }
  }

  return (
    <div className="flex h-full flex-col">
      <h1 className="sr-only">New conversation</h1>
      <div className="flex flex-1 items-center justify-center px-4">
        <EmptyConversation modelLabel={modelLabel} />
      </div>
      <div className="px-4 pb-6">
        {error && (
          <p role="alert" className="mx-auto mb-2 max-w-3xl rounded-lg bg-amber-50 px-3 py-2 text-sm text-amber-900">
            {error}
          </p>
        )}
        <Composer busy={busy} running={false} onSend={send} autoFocus />
      </div>
    </div>
  );
}
