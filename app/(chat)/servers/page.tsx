import type { Metadata } from 'next';

import { oauthReturnOf } from '@/app/_components/servers/server-view';
import { ServersPage } from '@/app/_components/servers/servers-page';

export const metadata: Metadata = { title: 'Servers · Switchboard' };

type Query = Record<string, string | string[] | undefined>;

/**
 * The person's MCP servers (app/_components/servers); the chat layout checks the session. The
 * OAuth callback comes back here with `oauth=connected&server=<id>` or `oauth=failed&reason=<code>`,
 * which the page says in its own fixed words (`oauthReturnOf`).
 */
export default async function Page({ searchParams }: { searchParams: Promise<Query> }) {
  const query = await searchParams;
  const oauth = oauthReturnOf((key) => (typeof query[key] === 'string' ? query[key] : undefined));
  return <ServersPage oauthReturn={oauth} />;
}
