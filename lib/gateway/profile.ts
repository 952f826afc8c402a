import type { Db } from '@/db/connection';
import { listPoliciesOfUser } from '@/db/queries/orgs';
import type { StoredTokenProfile } from '@/db/stored-json';
import type { ToolHost } from '@/lib/agent/tool-host';
import { toolRefusal } from '@/lib/consent/org-policy';
import { AppError } from '@/lib/http/errors';

import { exposableTools } from './catalog';

/** How many of the person's tool names an error lists, so the message stays readable. */
const NAMES_SHOWN = 12;

/**
 * A token's profile from the tool names the person picked (`POST` / `PATCH /api/account/tokens`):
 * each must be one of their tools as the chat names it now — another person's tool, a server
 * switched off or a tool outside their plan is refused with the field and what is allowed; a tool
 * their organization's policy forbids is refused with its reason (403 `forbidden:org_policy`, read
 * here so that no route can forget it). Only the person changes a profile (a session, never a
 * token): an MCP client cannot widen its own.
 */
export async function resolveProfile(
  deps: { db: Db; host: ToolHost },
  user: { id: string; plan: string | null },
  names: string[],
): Promise<StoredTokenProfile> {
  if (names.length === 0) return { v: 1, tools: [] };
  const [tools, policies] = await Promise.all([exposableTools(deps.host, user), listPoliciesOfUser(deps.db, user.id)]);
  const byName = new Map(tools.map((t) => [t.name, t]));
  const picked = new Map<string, StoredTokenProfile['tools'][number]>();
  for (const name of names) {
    const found = byName.get(name);
    if (!found) {
      const yours = tools.map((t) => t.name);
      const shown = yours.slice(0, NAMES_SHOWN).join(', ') + (yours.length > NAMES_SHOWN ? `, … (${yours.length} in all)` : '');
      throw new AppError(
        'bad_request',
        'body',
        `tools: "${name}" is not one of your tools. Use names of the form <server>__<tool> from the Account page` +
          (yours.length ? `; yours are: ${shown}.` : '; you have none that can be exposed.'),
        'tools',
      );
    }
    const refused = toolRefusal(policies, found.tool);
    if (refused) throw new AppError('forbidden', 'org_policy', `tools: ${refused.why}`, 'tools');
    picked.set(name, { serverId: found.tool.serverId, tool: found.tool.name, name });
  }
  return { v: 1, tools: [...picked.values()] };
}
