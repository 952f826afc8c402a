import { resumeAfterSignIn } from '@/lib/agent/sign-in';
import { appOrigin } from '@/lib/http/origin';
import { getSecretBox } from '@/lib/secrets/secret-box';
import { allowLoopback } from '@/lib/servers/fields';
import type { ServersOAuthContext } from '@/lib/servers/oauth';
import type { ServersContext } from '@/lib/servers/service';

import type { Runtime } from './runtime';
import { remoteFetch } from './tool-host';

/** What the servers routes hand to lib/servers: the database, the secret box, the app's gateways. */
export async function serversContext(rt: Runtime): Promise<ServersContext> {
  return {
    db: rt.handle.db,
    box: await getSecretBox(),
    remote: rt.tools.remote,
    builtinListing: rt.tools.builtinListing,
    allowLoopback: allowLoopback(),
    oauthFetch: remoteFetch(),
  };
}

/** The servers context plus what OAuth needs: the guarded, bounded fetch and the app's origin. */
export async function serversOAuthContext(rt: Runtime, req: Request): Promise<ServersOAuthContext> {
  return { ...(await serversContext(rt)), oauthFetch: remoteFetch(), appOrigin: appOrigin(req) };
}

/** After a sign-in: the calls that waited for that server run (lib/agent). */
export function resumeSignedIn(rt: Runtime) {
  return (s: { userId: string; serverId: string }) => resumeAfterSignIn(rt.engine, s);
}
