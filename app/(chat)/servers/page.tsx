import type { Metadata } from 'next';

import { ServersPage, type OAuthReturn } from '@/app/_components/servers/servers-page';

export const metadata: Metadata = { title: 'Servers · Switchboard' };

type Query = Record<string, string | string[] | undefined>;

/**
 * The person's MCP servers (app/_components/servers); the chat layout checks the session. The
 * OAuth callback comes back here with `oauth=connected&server=<id>` or `oauth=failed&message=…`.
 */
export default async function Page({ searchParams }: { searchParams: Promise<Query> }) {
  const query = await searchParams;
  const one = (key: string) => (typeof query[key] === 'string' ? query[key] : undefined);
  const oauth: OAuthReturn | null =
    one('oauth') === 'connected'
      ? { kind: 'connected', serverId: one('server') ?? '' }
      : one('oauth') === 'failed'
        ? { kind: 'failed', message: one('message') ?? 'Signing in failed; try again.' }
        : null;
  return <ServersPage oauthReturn={oauth} />;
}
