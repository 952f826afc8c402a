import type { Metadata } from 'next';

import { InboxPage } from '@/app/_components/inbox/inbox-page';

export const metadata: Metadata = { title: 'Other clients · Switchboard' };

/** Calls of the person's MCP clients that wait for their decision (app/_components/inbox); the chat layout checks the session. */
export default function Page() {
  return <InboxPage />;
}
