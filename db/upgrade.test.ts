import { randomUUID } from 'node:crypto';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { MIGRATIONS_FOLDER, openPglite, type DbHandle } from './connection';
import { getToolCall } from './queries/tool-calls';

/**
 * A database written by the release before typed JSON (migrations 0000–0003) is upgraded by
 * migration 0004 and its rows load through the query layer in today's shapes.
 */
describe('upgrading a database with tool calls from before migration 0004', () => {
  let folder: string;
  let h: DbHandle;

  beforeAll(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), 'sb-migrations-'));
    await cp(MIGRATIONS_FOLDER, folder, { recursive: true });
    const journalFile = path.join(folder, 'meta', '_journal.json');
    const journal = JSON.parse(await readFile(journalFile, 'utf8'));
    await writeFile(journalFile, JSON.stringify({ ...journal, entries: journal.entries.filter((e: { idx: number }) => e.idx <= 3) }));
    h = await openPglite();
    await h.migrate(folder);
  });
  afterAll(async () => {
    await h?.close();
    await rm(folder, { recursive: true, force: true });
  });

  it('moves elicitation answers out of the decision, renames the verdict, and reads old shapes', async () => {
    const user = randomUUID();
    const conversation = randomUUID();
    const run = randomUUID();
    const call = randomUUID();
    await h.db.execute(sql`insert into users (id, email) values (${user}, ${`old-${user}@example.test`})`);
    await h.db.execute(sql`insert into conversations (id, user_id, model) values (${conversation}, ${user}, 'demo')`);
    await h.db.execute(
      sql`insert into runs (id, conversation_id, user_id, model, status) values (${run}, ${conversation}, ${user}, 'demo', 'completed')`,
    );
    const policy = { decision: 'ask', reason: 'Tools of untrusted servers need approval.' };
    const decision = {
      kind: 'allow_once',
      by: user,
      at: '2026-11-01T10:00:00.000Z',
      inputResponses: { name: { action: 'accept', content: { name: 'Ada' } } },
      answeredBy: user,
      answeredAt: '2026-11-01T10:01:00.000Z',
    };
    await h.db.execute(sql`
      insert into tool_calls (id, run_id, conversation_id, user_id, step, position, tool_use_id, model_name, input, args_hash,
                              status, policy, decision)
      values (${call}, ${run}, ${conversation}, ${user}, 1, 0, 'toolu_1', 'fx__ask', '{}'::jsonb, 'h', 'succeeded',
              ${JSON.stringify(policy)}::jsonb, ${JSON.stringify(decision)}::jsonb)`);

    await h.migrate();

    const row = await getToolCall(h.db, call);
    expect(row?.verdict).toEqual({ v: 1, verdict: 'ask', reason: policy.reason, warnings: [], grantId: null, constraint: null });
    expect(row?.decision).toEqual({ v: 1, kind: 'allow_once', by: user, at: '2026-11-01T10:00:00.000Z' });
    expect(row?.inputResponses).toEqual({
      v: 1,
      responses: { name: { action: 'accept', content: { name: 'Ada' } } },
      by: user,
      at: '2026-11-01T10:01:00.000Z',
    });
  });
});
