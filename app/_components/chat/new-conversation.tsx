'use client';

import { useRouter } from 'next/navigation';
import { useState } from 'react';

import { api, ApiError } from '../api';
import { Composer } from '../composer/composer';
import type { SendExtras } from '../composer/composer-commands';
import { Notice } from '../ui/index';
import { EmptyConversation } from './chat-view';

/** The empty chat: the first message creates the conversation, then opens it mid-answer. */
export function NewConversation({ modelLabel }: { modelLabel: string }) {
  const router = useRouter();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');

  async function send(text: string, extras: SendExtras = {}) {
    setBusy(true);
    setError('');
    let created: string | undefined;
    try {
      const conversation = await api<{ id: string }>('/api/conversations', { method: 'POST', body: {} });
      created = conversation.id;
      // The files go with the first message (the new chat has no server menus, so nothing else does).
      const body = extras.attachments?.length ? { text, attachments: extras.attachments } : { text };
      await api(`/api/conversations/${conversation.id}/messages`, { method: 'POST', body });
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
      <div className="min-h-0 flex-1 overflow-y-auto">
        <div className="flex min-h-full items-center justify-center px-4 md:px-6">
          <EmptyConversation modelLabel={modelLabel} />
        </div>
      </div>
      <div className="bg-canvas px-3 pb-[max(env(safe-area-inset-bottom),0.75rem)] pt-1 md:px-6">
        {error && (
          <Notice tone="error" className="mx-auto mb-2 max-w-3xl">
            {error}
          </Notice>
        )}
        <Composer busy={busy} running={false} onSend={send} autoFocus />
      </div>
    </div>
  );
}
