import type { Metadata } from 'next';

import { ServersPage } from '@/app/_components/servers/servers-page';

export const metadata: Metadata = { title: 'Servers · Switchboard' };

/** The person's MCP servers (app/_components/servers); the chat layout checks the session. */
export default function Page() {
  return <ServersPage />;
}
