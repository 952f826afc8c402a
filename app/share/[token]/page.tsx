import type { Metadata } from 'next';
import { headers } from 'next/headers';
import { notFound, redirect } from 'next/navigation';
import { cache } from 'react';

import { sharedMetadata, signInToReturnHref } from '@/app/_components/share/share-view';
import { SharedConversation } from '@/app/_components/share/shared-conversation';
import { SharedUnavailable } from '@/app/_components/share/shared-unavailable';
import { AppError } from '@/lib/http/errors';
import { clientKey } from '@/lib/http/origin';
import { getPageSession } from '@/lib/server/page-session';
import { getRuntime } from '@/lib/server/runtime';
import { openShare } from '@/lib/share/service';

export const dynamic = 'force-dynamic';

/**
 * One opening per request: the metadata and the page read the same snapshot, and a reader's
 * visit counts once against the link's rate limit.
 */
const open = cache(async (token: string) => {
  const rt = await getRuntime();
  const session = await getPageSession();
  const address = clientKey(new Request('http://page.invalid/', { headers: await headers() }));
  const view = await openShare(rt, token, session ? { userId: session.user.id } : null, address);
  return { view, signedIn: session !== null };
});

type Params = { params: Promise<{ token: string }> };

export async function generateMetadata({ params }: Params): Promise<Metadata> {
  const { token } = await params;
  const opened = await open(token).catch(() => null);
  const { title, description } = sharedMetadata(opened?.view ?? null);
  return {
    title,
    description,
    robots: { index: false, follow: false },
    // A link clicked on this page must not hand the token on to another site.
    referrer: 'no-referrer',
    openGraph: { title, description, type: 'article' },
  };
}

/** A shared conversation (public: outside the signed-in shell). */
export default async function SharedConversationPage({ params }: Params) {
  const { token } = await params;
  const opened = await open(token).catch((err: unknown) => {
    if (err instanceof AppError && err.type === 'not_found') notFound();
    if (err instanceof AppError && err.type === 'unauthorized') redirect(signInToReturnHref(token));
    if (err instanceof AppError && err.type === 'rate_limited') return null;
    if (err instanceof AppError && err.type === 'forbidden') return { forbidden: err.message };
    throw err;
  });
  if (opened && 'forbidden' in opened) return <SharedUnavailable title="Not available" description={opened.forbidden} />;
  if (!opened) {
    return (
      <SharedUnavailable
        title="Too many requests"
        description="This address opened shared links too often. Wait a minute, then reload the page."
      />
    );
  }
  return <SharedConversation view={opened.view} token={token} signedIn={opened.signedIn} />;
}
