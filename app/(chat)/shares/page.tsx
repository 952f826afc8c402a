import type { Metadata } from 'next';

import { SharesPage } from '@/app/_components/share/shares-page';

export const metadata: Metadata = { title: 'Shared links · Switchboard' };

/** The person's share links across all conversations (app/_components/share); the chat layout checks the session. */
export default function Page() {
  return <SharesPage />;
}
