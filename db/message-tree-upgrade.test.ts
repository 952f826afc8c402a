import { randomUUID } from 'node:crypto';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { MIGRATIONS_FOLDER, openPglite, type DbHandle } from './connection';
import { getConversation } from './queries/conversations';
import { readHistory } from './queries/history-summaries';
import { appendMessage, listMessages, listPath } from './queries/messages';

/**
 * Migration `message_tree`: conversations written before messages formed a tree become one
 * straight path each — every message follows the one before it by seq, and the last is the
 * active leaf — so they read, continue and are sent to the model as before.
 */
describe('upgrading conversations from before the message tree (migration message_tree)', () => {
  let folder: string;
  let h: DbHandle;

  beforeAll(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), 'sb-migrations-'));
    await cp(MIGRATIONS_FOLDER, folder, { recursive: true });
    const journalFile = path.join(folder, 'meta', '_journal.json');
    const journal = JSON.parse(await readFile(journalFile, 'utf8'));
    // Everything before it, whatever number it ends up with.
    const at = journal.entries.findIndex((e: { tag: string }) => e.tag.endsWith('_message_tree'));
    expect(at).toBeGreaterThan(0);
    await writeFile(journalFile, JSON.stringify({ ...journal, entries: journal.entries.slice(0, at) }));
    h = await openPglite();
    await h.migrate(folder);
  });
  afterAll(async () => {
    await h?.close();
    await rm(folder, { recursive: true, force: true });
  });

  it('makes each conversation one path, its last message the active leaf; an empty one has none', async () => {
    const user = randomUUID();
    await h.db.execute(sql`insert into users (id, email) values (${user}, ${`old-${user}@example.test`})`);
    async function conversationWith(words: string[]) {
      const conversation = randomUUID();
      await h.db.execute(
        sql`insert into conversations (id, user_id, model, message_seq) values (${conversation}, ${user}, 'demo', ${words.length})`,
      );
      for (const [i, w] of words.entries()) {
        const role = i % 2 === 0 ? 'user' : 'assistant';
        await h.db.execute(sql`insert into messages (id, conversation_id, seq, role, content)
          values (${randomUUID()}, ${conversation}, ${i + 1}, ${role}, ${JSON.stringify([{ type: 'text', text: w }])}::jsonb)`);
      }
      return conversation;
    }
    const long = await conversationWith(['Q1', 'A1', 'Q2', 'A2']);
    const short = await conversationWith(['Q1']);
    const empty = await conversationWith([]);

    await h.migrate();

    const messages = await listMessages(h.db, long);
    expect(messages.map((m) => m.parentId)).toEqual([null, messages[0]!.id, messages[1]!.id, messages[2]!.id]);
    expect((await getConversation(h.db, user, long))!.activeLeafId).toBe(messages[3]!.id);
    expect((await listPath(h.db, long)).map((m) => [m.id, m.siblingIds])).toEqual(messages.map((m) => [m.id, null]));
    expect((await readHistory(h.db, long)).messages.map((m) => m.id)).toEqual(messages.map((m) => m.id));
    const [only] = await listMessages(h.db, short);
    expect(only!.parentId).toBeNull();
    expect((await getConversation(h.db, user, short))!.activeLeafId).toBe(only!.id);
    expect((await getConversation(h.db, user, empty))!.activeLeafId).toBeNull();

    // And the conversation goes on after its last message.
    const next = await appendMessage(h.db, { conversationId: long, role: 'user', content: [{ type: 'text', text: 'Q3' }] });
    expect(next.parentId).toBe(messages[3]!.id);
    expect((await getConversation(h.db, user, long))!.activeLeafId).toBe(next.id);
  });
});
