import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { fileRefBlock } from '@/db/file-refs';
import { toolCalls } from '@/db/schema';
import { fileDeps, uploadFile } from '@/lib/files/service';
import { closeBuiltinHandlers } from '@/lib/mcp/builtin';
import { createAppToolHost } from '@/lib/server/tool-host';
import { busFactory, TEST_REDIS_URL, type TestBusKind } from '@/test/buses';
import { openTestDb, TEST_DATABASES } from '@/test/db';
import { engineDeps, userAndConversation } from '@/test/engine-harness';
import { startScriptedModel } from '@/test/fixtures/scripted-model';
import { bigPng } from '@/test/sample-files';
import { text, toolUse } from '@/test/tool-harness';

import { startRun, type OpeningMessage } from './engine';

/**
 * SQL statements of one turn on the engine path, counted so they cannot creep back (issue 12:
 * durability and consent should cost almost nothing). A tool turn is two model calls and one
 * call of the built-in `notes__search`, through the app's tool host and stored grants, in a
 * conversation that already had a turn (warm catalogs). Every statement the app sends is
 * counted (drizzle's queries and each NOTIFY); BEGIN / COMMIT are not.
 *
 * The ceilings are the target for a tool turn (20) and today's count of a plain turn plus
 * one (a stored text delta more when the stream spans a flush): lower them when a change takes
 * statements out. Where each statement goes is listed in docs/PERFORMANCE.md (PRINT_STATEMENTS=1).
 */
const TOOL_TURN_CEILING = 20;
const PLAIN_TURN_CEILING = 10;

/**
 * On each database with its own bus, and with the Redis bus (when Redis is reachable), which takes
 * every notification off the database: the same ceilings hold, with no `pg_notify` at all, and the
 * turn's events are published to Redis instead.
 */
const CASES = TEST_DATABASES.flatMap(({ kind, available }) => [
  { kind, bus: 'postgres' as TestBusKind, available },
  { kind, bus: 'redis' as TestBusKind, available: available && Boolean(TEST_REDIS_URL) },
]);

for (const { kind, bus, available } of CASES) {
  describe.skipIf(!available)(`statements per turn on ${kind}${bus === 'redis' ? ' with the Redis bus' : ''}`, () => {
    let h: DbHandle;
    const statements: string[] = [];
    const published: string[] = [];
    const buses = busFactory(bus);
    beforeAll(async () => {
      h = await openTestDb(kind, { onStatement: (s) => statements.push(s) });
    });
    afterAll(async () => {
      await buses.closeAll();
      // The built-in servers' handlers are kept per process with the database they were first given: the
      // next database's turns must not reach this one once it is closed.
      await closeBuiltinHandlers();
      await h?.close();
    });

    async function countTurn(script: Parameters<typeof startScriptedModel>[0], opening?: (userId: string) => Promise<OpeningMessage[]>) {
      const model = await startScriptedModel([{ blocks: [text('Warm.')] }, ...script]);
      const deps = engineDeps(h, {
        client: model.client,
        modelName: 'claude-test',
        tools: createAppToolHost(h.db),
        bus: buses.open(h, { onPublish: (_channel, payload) => published.push(payload) }),
      });
      const { user, conversation } = await userAndConversation(h);
      await startRun(deps, { conversationId: conversation.id, userId: user.id, sessionId: null, text: 'warm up' });
      await deps.idle();
      const messages = await opening?.(user.id);
      statements.length = 0;
      published.length = 0;
      await startRun(deps, { conversationId: conversation.id, userId: user.id, sessionId: null, text: 'search my notes', messages });
      await deps.idle();
      await model.close();
      // node-postgres sends BEGIN / COMMIT as statements of their own, PGlite does not: not counted on either.
      // Nor the lease renewals: they come once a second, whatever the turn does (a loaded machine may fit one in).
      // Nor the tool's own work (notes__search reads the notes table): the count is what the host adds.
      const counted = statements.filter(
        (s) => !/^\s*(begin|commit|rollback)\b/i.test(s) && !/^update "runs" set "lease_expires_at"/.test(s) && !/from "notes"/.test(s),
      );
      // PRINT_STATEMENTS=1 lists them, one line each: where a turn's statements go.
      if (process.env.PRINT_STATEMENTS)
        console.log(counted.map((s, i) => `${String(i).padStart(2)}: ${s.replace(/\s+/g, ' ').trim().slice(0, 200)}`).join('\n'));
      return {
        total: counted.length,
        notifies: counted.filter((s) => /pg_notify/.test(s)).length,
        statements: counted,
        published: published.length,
      };
    }

    it(`a tool turn (two model calls, one tool call) sends at most ${TOOL_TURN_CEILING} statements`, async () => {
      const turn = await countTurn([
        { blocks: [toolUse('tu_search', 'notes__search', { query: 'milk' })] },
        { blocks: [text('Found nothing.')] },
      ]);
      expect(turn.total, turn.statements.join('\n')).toBeLessThanOrEqual(TOOL_TURN_CEILING);
      // Something was counted: the turn wrote its run, messages, call and audit entry.
      expect(turn.statements.some((s) => /insert into "audit_entries"/.test(s))).toBe(true);
      expect(turn.statements.some((s) => /insert into "tool_calls"/.test(s))).toBe(true);
      // The tool itself ran: a failed search would count the statements of a different turn.
      expect(await h.db.select({ isError: toolCalls.isError, status: toolCalls.status }).from(toolCalls)).toContainEqual({
        isError: false,
        status: 'succeeded',
      });
      expectAnnounced(turn);
    });

    it(`a plain turn (one model call) sends at most ${PLAIN_TURN_CEILING} statements`, async () => {
      const turn = await countTurn([{ blocks: [text('Hello.')] }]);
      expect(turn.total, turn.statements.join('\n')).toBeLessThanOrEqual(PLAIN_TURN_CEILING);
      expect(turn.statements.some((s) => /insert into "runs"/.test(s))).toBe(true);
      expectAnnounced(turn);
    });

    it('a tool turn with one 1 MB image reads its bytes once, and adds only that and its row', async () => {
      const turn = await countTurn(
        [{ blocks: [toolUse('tu_search', 'notes__search', { query: 'milk' })] }, { blocks: [text('Found nothing.')] }],
        async (userId) => {
          const image = await uploadFile(fileDeps(h.db), userId, { name: 'big.png', bytes: bigPng(1024 * 1024) });
          return [{ role: 'user', content: [fileRefBlock(image), { type: 'text', text: 'search my notes' }], origin: null }];
        },
      );
      expect(turn.statements.filter((s) => /"file_blobs"/.test(s))).toHaveLength(1);
      expect(turn.statements.filter((s) => /from "files"/.test(s))).toHaveLength(1);
      expect(turn.total, turn.statements.join('\n')).toBeLessThanOrEqual(TOOL_TURN_CEILING + 2);
    });

    /** The turn's events were announced: by the statements that stored them, or on Redis with none through the database. */
    function expectAnnounced(turn: { statements: string[]; notifies: number; published: number }) {
      if (bus === 'redis') {
        expect(turn.statements.filter((s) => /pg_notify/.test(s))).toEqual([]);
        expect(turn.published).toBeGreaterThan(0);
      } else {
        expect(turn.notifies).toBeGreaterThan(0);
        expect(turn.published).toBe(0);
      }
    }
  });
}
