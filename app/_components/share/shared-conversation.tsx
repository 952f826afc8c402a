'use client';

import { Link2, LogIn } from 'lucide-react';
import Link from 'next/link';
import { useCallback, useMemo, useState } from 'react';

import { api, ApiError } from '@/app/_components/api';
import { MessageList } from '@/app/_components/chat/message-list';
import { MoreMessages } from '@/app/_components/chat/more-messages';
import { sharedFileHref } from '@/app/_components/files/file-view';
import { Logo, LogoMark } from '@/app/_components/shell/logo';
import { buttonClasses, cx, Notice } from '@/app/_components/ui';

import { ForkButton } from './fork-button';
import { withLaterPage } from './later-pages';
import {
  readerToolDetailsSentence,
  sharedSubtitle,
  SIGN_IN_TO_CONTINUE,
  signInToReturnHref,
  type SharedConversationView,
  type SharedMessagesPage,
} from './share-view';
import { useWhen } from './use-when';

/**
 * A shared conversation as a reader sees it: the same messages and tool cards as the
 * conversation page, read-only, with the owner's choices already applied by the server. No
 * composer, no Tools button, nothing that decides anything. A signed-in reader can continue it
 * in their own account; a signed-out one is told how.
 */
export function SharedConversation({ view, token, signedIn }: { view: SharedConversationView; token: string; signedIn: boolean }) {
  const when = useWhen();
  const [error, setError] = useState('');
  const { shown, loadLater, loadingLater, laterFailed } = useLaterPages(view, token, setError);
  const toolCalls = useMemo(() => Object.fromEntries(shown.toolCalls.map((c) => [c.toolUseId, c])), [shown.toolCalls]);
  const hasToolCalls = shown.toolCalls.length > 0;
  const fileHref = useCallback((fileId: string) => sharedFileHref(token, fileId), [token]);

  return (
    <div className="flex min-h-dvh flex-col bg-canvas">
      <header
        className={cx(
          'sticky top-0 z-10 flex shrink-0 items-center gap-3 border-b border-border bg-canvas/95 px-4 backdrop-blur md:px-6',
          'pb-2 pt-[max(env(safe-area-inset-top),0.5rem)]',
        )}
      >
        <Link href="/" className="rounded-control px-1 py-1" aria-label="Switchboard">
          <Logo className="max-sm:hidden" />
          <LogoMark className="size-7 sm:hidden" />
        </Link>
        <span className="flex-1" />
        {signedIn ? (
          <ForkButton token={token} onError={setError} />
        ) : (
          <Link href={signInToReturnHref(token)} className={buttonClasses({ variant: 'secondary', size: 'sm' })}>
            <LogIn className="size-4" aria-hidden />
            Sign in to continue
          </Link>
        )}
      </header>
      <main className="mx-auto w-full max-w-3xl flex-1 space-y-6 px-4 pb-12 pt-6 md:px-6">
        <div className="space-y-2 border-b border-border pb-5">
          <p className="flex items-start gap-1.5 text-[13px] font-medium text-muted" data-testid="shared-subtitle">
            <Link2 className="mt-px size-4 shrink-0" aria-hidden />
            {sharedSubtitle(view, when)}
          </p>
          <h1 className="text-balance break-words text-2xl font-semibold tracking-tight text-fg">{view.title}</h1>
          <p className="text-sm text-muted">
            A read-only copy, as it was then.
            {hasToolCalls ? ` ${readerToolDetailsSentence(view.includeToolDetails)}` : ''}
          </p>
          {!signedIn && <p className="text-sm text-muted">{SIGN_IN_TO_CONTINUE}</p>}
        </div>
        {error && <Notice tone="error">{error}</Notice>}
        {/* Files the owner included are read through this link's token, never the owner's own URL. */}
        <MessageList readOnly messages={shown.messages} toolCalls={toolCalls} fileHref={fileHref} />
        {shown.later > 0 && (
          <MoreMessages direction="later" count={shown.later} busy={loadingLater} failed={laterFailed} onLoad={loadLater} />
        )}
      </main>
    </div>
  );
}

/** The pages after the first one, read as the reader scrolls down to them (./later-pages.ts). */
function useLaterPages(view: SharedConversationView, token: string, onError: (message: string) => void) {
  const [shown, setShown] = useState<SharedMessagesPage>(view);
  const [loadingLater, setLoadingLater] = useState(false);
  const [laterFailed, setLaterFailed] = useState(false);
  const next = shown.next;
  const loadLater = useCallback(async () => {
    if (!next || loadingLater) return;
    setLoadingLater(true);
    try {
      const page = await api<SharedMessagesPage>(`/api/share/${encodeURIComponent(token)}/messages?after=${next}`);
      setShown((s) => withLaterPage(s, next, page));
      setLaterFailed(false);
    } catch (err) {
      setLaterFailed(true);
      onError(err instanceof ApiError ? err.message : 'Could not load the rest of the conversation.');
    } finally {
      setLoadingLater(false);
    }
  }, [token, next, loadingLater, onError]);
  return { shown, loadLater, loadingLater, laterFailed };
}
