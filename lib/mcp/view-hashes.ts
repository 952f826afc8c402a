import type { Client } from '@modelcontextprotocol/client';

import { toolViewDocument, toolViewOf, viewContentHash } from './app-views';
import type { RawTool } from './catalog';
import { resourceContentsOf } from './resources';
import type { McpServerConfig } from './types';

/** At most this many distinct views are read per listing; the tools of any others count as unread. */
export const MAX_VIEWS_PER_LISTING = 20;

/**
 * The views the listed tools declare, read on the listing's own connection and hashed
 * (`viewContentHash`): what the person reviews of a view, pinned by its tool's fingerprint. A view
 * that cannot be read (an error, the wrong type, too large) gets no hash: its tool's fingerprint
 * then differs from one reviewed with the view, so it waits for review until the view reads again
 * rather than running under a page nobody saw.
 */
export async function readViewHashes(
  client: Client,
  server: McpServerConfig,
  raw: readonly RawTool[],
  request: { timeout: number; signal?: AbortSignal },
): Promise<Map<string, string>> {
  const uris = [...new Set(raw.flatMap((t) => toolViewOf(t._meta)?.resourceUri ?? []))].slice(0, MAX_VIEWS_PER_LISTING);
  // At once, not one after another: a slow view costs the listing one timeout, not one each.
  const read = await Promise.all(
    uris.map(async (uri): Promise<[string, string] | null> => {
      try {
        const doc = toolViewDocument(server, uri, resourceContentsOf(await client.readResource({ uri }, request), uri));
        return doc.ok ? [uri, viewContentHash(doc.value)] : null;
      } catch {
        // Unread: no hash (see above). The listing itself goes on.
        return null;
      }
    }),
  );
  return new Map(read.filter((entry) => entry !== null));
}
