import { redirect } from 'next/navigation';

import { ConsentForm } from '@/app/_components/mcp-clients/consent-form';
import { ConsentShell } from '@/app/_components/mcp-clients/consent-shell';
import { Notice } from '@/app/_components/ui';
import { pickableTools } from '@/lib/gateway/catalog';
import { resourceUrl } from '@/lib/gateway/metadata';
import { authorizeParams, checkAuthorizeRequest } from '@/lib/oauth-server/authorize';
import { clientHost } from '@/lib/oauth-server/clients';
import { getPageOrigin, getPageSession } from '@/lib/server/page-session';
import { getRuntime } from '@/lib/server/runtime';

export const dynamic = 'force-dynamic';

/**
 * The consent screen of Switchboard's authorization server (`/oauth/authorize`, OAuth 2.1
 * §4.1.1): signed in first (then back here), the request checked (lib/oauth-server/authorize.ts),
 * then the client named with its host and the person's tools to pick from, none ticked. Allow /
 * Deny post to `/api/oauth/authorize`. Framing is refused for every page (proxy.ts CSP
 * `frame-ancestors 'none'`, `X-Frame-Options: DENY` in next.config.mjs): a click here cannot be
 * stolen by a page that shows this one under its own.
 */
export default async function AuthorizePage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const raw = await searchParams;
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(raw)) if (typeof v === 'string') query.set(k, v);
  const session = await getPageSession();
  if (!session) redirect(`/sign-in?next=${encodeURIComponent(`/oauth/authorize?${query.toString()}`)}`);
  const rt = await getRuntime();
  const origin = await getPageOrigin();
  const params = authorizeParams(query);
  const check = await checkAuthorizeRequest({ db: rt.handle.db }, params, origin);
  if (check.kind === 'redirect') redirect(check.url);
  if (check.kind === 'show_error') {
    return (
      <ConsentShell title="This connection request cannot be used">
        <Notice tone="error">{check.message}</Notice>
        <p className="mt-4 text-sm text-muted">Nothing was shared. You can close this page and try connecting the client again.</p>
      </ConsentShell>
    );
  }
  const { client, redirectUri } = check.request;
  const tools = await pickableTools({ db: rt.handle.db, host: rt.tools.host }, session.user);
  return (
    <ConsentShell title={`Connect ${client.name} to Switchboard?`}>
      <ConsentForm
        client={{
          name: client.name,
          host: clientHost(client),
          verified: client.kind === 'metadata_document',
          redirectHost: hostOf(redirectUri),
        }}
        account={session.user.email}
        endpoint={resourceUrl(origin)}
        params={params}
        tools={tools}
      />
    </ConsentShell>
  );
}

function hostOf(uri: string): string {
  const url = new URL(uri);
  return url.host || url.protocol.replace(/:$/, '');
}
