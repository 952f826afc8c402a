import { redirect } from 'next/navigation';

import { getPageSession } from '@/lib/server/page-session';

import { AcceptInvitation } from './accept-invitation';

export const dynamic = 'force-dynamic';

/**
 * Where an invitation link leads. Opening it changes nothing (a link preview or a prefetch must
 * not use up a one-time link): the person presses Join. Signed out, they sign in and come back.
 */
export default async function InvitationPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const here = `/invitations/${encodeURIComponent(token)}`;
  if (!(await getPageSession())) redirect(`/sign-in?next=${encodeURIComponent(here)}`);
  return (
    <main className="min-h-dvh bg-canvas">
      <div className="mx-auto max-w-md px-4 py-12">
        <AcceptInvitation token={token} />
      </div>
    </main>
  );
}
