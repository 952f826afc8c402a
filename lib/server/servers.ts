import { getSecretBox } from '@/lib/secrets/secret-box';
import { allowLoopback } from '@/lib/servers/fields';
import type { ServersContext } from '@/lib/servers/service';

import type { Runtime } from './runtime';

/** What the servers routes hand to lib/servers: the database, the secret box, the app's gateways. */
export async function serversContext(rt: Runtime): Promise<ServersContext> {
  return {
    db: rt.handle.db,
    box: await getSecretBox(),
    remote: rt.tools.remote,
    builtinListing: rt.tools.builtinListing,
    allowLoopback: allowLoopback(),
  };
}
