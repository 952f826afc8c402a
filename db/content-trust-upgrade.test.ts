import { randomUUID } from 'node:crypto';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { MIGRATIONS_FOLDER, openPglite, type DbHandle } from './connection';
import { getConversationTaint } from './queries/taint';

/**
 * Migration `content_trust`: results stored before it were never judged by their content.
 * Only the first-party servers' and the host's were ever ours to believe; every other server's —
 * a "trusted" one's too — taints its conversation from then on, as it would now.
 */
describe('upgrading tool calls from before content trust (migration content_trust)', () => {
  let folder: string;
  let h: DbHandle;

  beforeAll(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), 'sb-migrations-'));
    await cp(MIGRATIONS_FOLDER, folder, { recursive: true });
    const journalFile = path.join(folder, 'meta', '_journal.json');
    const journal = JSON.parse(await readFile(journalFile, 'utf8'));
    // Everything before it, whatever number it ends up with.
    const at = journal.entries.findIndex((e: { tag: string }) => e.tag.endsWith('_content_trust'));
    expect(at).toBeGreaterThan(0);
    await writeFile(journalFile, JSON.stringify({ ...journal, entries: journal.entries.slice(0, at) }));
    h = await openPglite();
    await h.migrate(folder);
  });
  afterAll(async () => {
    await h?.close();
    await rm(folder, { recursive: true, force: true });
  });

  it("believes the stored results of the built-in servers and the host's only", async () => {
    const user = randomUUID();
    await h.db.execute(sql`insert into users (id, email) values (${user}, ${`old-${user}@example.test`})`);
    /** A conversation with one stored, succeeded result of this server. */
    async function conversationWithResultOf(serverId: string, serverName: string) {
      const conversation = randomUUID();
      const run = randomUUID();
      await h.db.execute(sql`insert into conversations (id, user_id, model) values (${conversation}, ${user}, 'demo')`);
      await h.db.execute(
        sql`insert into runs (id, conversation_id, user_id, model, status) values (${run}, ${conversation}, ${user}, 'demo', 'completed')`,
      );
      await h.db.execute(sql`
        insert into tool_calls (id, run_id, conversation_id, user_id, step, position, tool_use_id, model_name, server_id, server_name,
                                tool, input, args_hash, status, trust)
        values (${randomUUID()}, ${run}, ${conversation}, ${user}, 1, 0, 'toolu_1', 'x__search', ${serverId}, ${serverName},
                'search', '{}'::jsonb, 'h', 'succeeded', 'trusted')`);
      return conversation;
    }
    const notes = await conversationWithResultOf('builtin-notes', 'Notes');
    const host = await conversationWithResultOf('host', 'Switchboard');
    const web = await conversationWithResultOf(randomUUID(), 'Web search');

    await h.migrate();

    expect(await getConversationTaint(h.db, notes)).toBeNull();
    expect(await getConversationTaint(h.db, host)).toBeNull();
    expect(await getConversationTaint(h.db, web)).toMatchObject({ source: 'result', serverName: 'Web search', tool: 'search' });
  });
});
