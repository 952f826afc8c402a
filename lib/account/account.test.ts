import { createHash } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { createAuthSession, findLiveAuthSession } from '@/db/queries/auth-sessions';
import { createConversation, listConversations, setConversationInstructions } from '@/db/queries/conversations';
import { appendMessage } from '@/db/queries/messages';
import { createNote } from '@/db/queries/notes';
import { addMembership, insertOrg } from '@/db/queries/orgs';
import { insertRun } from '@/db/queries/runs';
import { insertServer } from '@/db/queries/servers';
import { insertShareLink } from '@/db/queries/shares';
import { insertToolCalls } from '@/db/queries/tool-calls';
import { findUserByEmail, findUserById, setUserInstructions } from '@/db/queries/users';
import { authSessions, messages, notes, passwordResetTokens, toolCalls } from '@/db/schema';
import { verifyCredentials } from '@/lib/auth/credentials';
import { PASSWORD_CHECK_THROTTLE } from '@/lib/auth/limits';
import type { Session } from '@/lib/auth/session';
import { signUp } from '@/lib/auth/signup';
import { AppError } from '@/lib/http/errors';
import { openTestDb, TEST_DATABASES } from '@/test/db';

import { changePassword } from './change-password';
import { deleteAccount } from './delete';
import { buildAccountExport } from './export';
import { createResetLink, isResetLinkUsable, RESET_TOKEN_TTL_MS, resetPassword } from './password-reset';
import { endOtherSessions, listSessions, publicSessionId } from './sessions';

const PASSWORD = 'first password';
const HOUR = 3_600_000;

for (const { kind, available } of TEST_DATABASES) {
  describe.skipIf(!available)(`account on ${kind}`, () => {
    let h: DbHandle;
    beforeAll(async () => {
      h = await openTestDb(kind);
    });
    afterAll(async () => h?.close());

    /** A user with `count` live sessions; the first is "this" one. */
    async function userWithSessions(email: string, count: number): Promise<{ session: Session; sids: string[] }> {
      const user = await signUp(h.db, { email, password: PASSWORD }, { client: null });
      const sids = Array.from({ length: count }, (_, i) => `${email}-sid-${i}`);
      for (const [i, id] of sids.entries()) {
        const userAgent = i === 0 ? 'This Browser' : `Other Browser ${i}`;
        await createAuthSession(h.db, { id, userId: user.id, expiresAt: new Date(Date.now() + HOUR), userAgent });
      }
      return { session: { sessionId: sids[0]!, user: { id: user.id, email: user.email, name: user.name, plan: user.plan } }, sids };
    }

    const signsIn = async (email: string, password: string) =>
      (await verifyCredentials(h.db, { email, password }, { client: null, knownDevices: [] })).ok;

    it('account: changing the password ends every other session and keeps this one', async () => {
      const { session, sids } = await userWithSessions('change@example.test', 3);
      expect(await changePassword(h.db, session, { currentPassword: PASSWORD, newPassword: 'second password' })).toEqual({
        endedSessions: 2,
      });
      expect(await findLiveAuthSession(h.db, sids[0]!)).not.toBeNull();
      expect(await findLiveAuthSession(h.db, sids[1]!)).toBeNull();
      expect(await findLiveAuthSession(h.db, sids[2]!)).toBeNull();
      expect(await signsIn('change@example.test', 'second password')).toBe(true);
      expect(await signsIn('change@example.test', PASSWORD)).toBe(false);
    });

    it('account: a wrong current password is refused, and guessing it is throttled like sign-in', async () => {
      const { session, sids } = await userWithSessions('guess@example.test', 2);
      const now = new Date('2031-01-01T00:00:00Z');
      const tries: (AppError | unknown)[] = [];
      for (let i = 0; i < PASSWORD_CHECK_THROTTLE.freeFailures + 1; i++) {
        tries.push(
          await changePassword(h.db, session, { currentPassword: `guess ${i}`, newPassword: 'new password' }, now).catch((e) => e),
        );
      }
      expect(tries.slice(0, -1).map((e) => (e as AppError).status)).toEqual(Array(PASSWORD_CHECK_THROTTLE.freeFailures).fill(403));
      expect(tries[0]).toMatchObject({ field: 'currentPassword', message: 'currentPassword: that is not your current password.' });
      expect(tries.at(-1)).toMatchObject({ status: 429, code: 'rate_limited:password' });
      expect((tries.at(-1) as AppError).message).toMatch(/Try again in 1 second/);
      // The right one still works once the wait is over; nothing changed meanwhile.
      expect(await findLiveAuthSession(h.db, sids[1]!)).not.toBeNull();
      const later = new Date(now.getTime() + 2_000);
      await changePassword(h.db, session, { currentPassword: PASSWORD, newPassword: 'new password' }, later);
      expect(await signsIn('guess@example.test', 'new password')).toBe(true);
    });

    it('account: lists the live sessions with user agent and last seen, marks this one, and signs out the others', async () => {
      const { session, sids } = await userWithSessions('sessions@example.test', 3);
      const list = await listSessions(h.db, session);
      expect(list).toHaveLength(3);
      expect(list.filter((s) => s.current).map((s) => s.userAgent)).toEqual(['This Browser']);
      expect(list.map((s) => s.id).sort()).toEqual(sids.map(publicSessionId).sort());
      expect(JSON.stringify(list)).not.toContain(sids[1]!); // ids signed into cookies are never shown
      expect(list.every((s) => 'lastSeenAt' in s && 'createdAt' in s)).toBe(true);

      expect(await endOtherSessions(h.db, session)).toEqual({ endedSessions: 2 });
      expect((await listSessions(h.db, session)).map((s) => s.current)).toEqual([true]);
      // Another user's sessions are not listed or touched.
      const other = await userWithSessions('bystander@example.test', 1);
      await endOtherSessions(h.db, session);
      expect(await findLiveAuthSession(h.db, other.sids[0]!)).not.toBeNull();
    });

    async function seedData(session: Session, tag: string) {
      const conversation = await createConversation(h.db, { userId: session.user.id, model: 'demo', title: `Trip ${tag}` });
      const run = await insertRun(h.db, {
        conversationId: conversation.id,
        userId: session.user.id,
        sessionId: session.sessionId,
        model: 'demo',
        leaseOwner: 'test',
        leaseExpiresAt: new Date(Date.now() + 60_000),
      });
      await appendMessage(h.db, { conversationId: conversation.id, role: 'user', content: [{ type: 'text', text: `pack ${tag}` }] });
      await insertToolCalls(h.db, [
        {
          runId: run!.id,
          conversationId: conversation.id,
          userId: session.user.id,
          step: 0,
          position: 0,
          toolUseId: `toolu_${tag}`,
          modelName: 'notes__search',
          serverId: 'notes',
          serverName: 'Notes',
          tool: 'search',
          input: { query: tag },
          argsHash: `argshash-${tag}`,
          status: 'succeeded',
          requestState: `server-state-${tag}`,
        },
      ]);
      await createNote(h.db, session.user.id, { title: `Note ${tag}`, body: `body ${tag}` });
      return conversation;
    }

    it('account: the export holds profile, sessions, conversations with messages and tool calls, notes; no hash or secret', async () => {
      const { session } = await userWithSessions('export@example.test', 2);
      const conversation = await seedData(session, 'mine');
      const other = await userWithSessions('not-exported@example.test', 1);
      await seedData(other.session, 'theirs');

      await insertShareLink(h.db, {
        userId: session.user.id,
        conversationId: conversation.id,
        tokenHash: 'token-hash-mine',
        includeToolDetails: false,
        audience: 'signed_in',
        expiresAt: null,
        snapshotSeq: 1,
        snapshotTitle: 'Trip mine',
        snapshotAt: new Date(),
      });
      await setUserInstructions(h.db, session.user.id, 'I am the exporter.');
      await setConversationInstructions(h.db, session.user.id, conversation.id, 'Answer in French.');
      await setUserInstructions(h.db, other.session.user.id, 'theirs: instructions');
      const org = await insertOrg(h.db, { name: 'Export Org' });
      await addMembership(h.db, org.id, session.user.id, 'admin');
      const data = await buildAccountExport(h.db, session.user.id);
      expect(data.memberships).toContainEqual({ orgId: org.id, name: 'Export Org', role: 'admin' });
      // The person's own instructions are their data: both kinds are in it.
      expect(data.profile.instructions).toBe('I am the exporter.');
      expect(data.conversations[0]!.instructions).toBe('Answer in French.');
      expect(data.conversations[0]!.shareLinks).toMatchObject([{ audience: 'signed_in', includeToolDetails: false, expiresAt: null }]);
      expect(data.profile).toMatchObject({ email: 'export@example.test', plan: 'pro', hasPassword: true });
      expect(data.sessions.map((s) => s.userAgent).sort()).toEqual(['Other Browser 1', 'This Browser']);
      expect(data.conversations).toHaveLength(1);
      expect(data.conversations[0]).toMatchObject({ id: conversation.id, title: 'Trip mine' });
      expect(data.conversations[0]!.messages).toMatchObject([{ seq: 1, role: 'user', content: [{ type: 'text', text: 'pack mine' }] }]);
      // Ids and parents rebuild the tree of edits and other answers; the active leaf says which branch was shown.
      expect(data.conversations[0]!.messages[0]).toMatchObject({ id: expect.any(String), parentId: null });
      expect(data.conversations[0]).toHaveProperty('activeLeafId');
      expect(data.conversations[0]!.toolCalls).toMatchObject([{ server: 'Notes', tool: 'search', input: { query: 'mine' } }]);
      expect(data.notes).toMatchObject([{ title: 'Note mine', body: 'body mine' }]);
      await insertServer(h.db, session.user.id, {
        id: crypto.randomUUID(),
        name: 'Mine',
        namespace: 'mine',
        url: 'https://mcp.example.test/',
        trust: 'untrusted',
        headersSealed: 'sealed-header-secret-mine',
        oauthClientId: 'client-mine',
        oauthClientSecretSealed: 'sealed-client-secret-mine',
        timeoutMs: 30_000,
      });
      const withServers = await buildAccountExport(h.db, session.user.id);
      expect(withServers.servers).toMatchObject([{ name: 'Mine', namespace: 'mine', hasHeaders: true, oauthClientId: 'client-mine' }]);
      expect(JSON.stringify(withServers)).not.toMatch(/sealed-(header|client)-secret/);

      const text = JSON.stringify(data);
      const stored = (await findUserById(h.db, session.user.id))!.passwordHash!;
      for (const secret of [
        stored,
        'scrypt$',
        ...(await listSids(session.user.id)),
        'argshash-mine',
        'server-state-mine',
        'theirs',
        'token-hash-mine',
      ]) {
        expect(text).not.toContain(secret);
      }
    });

    const listSids = async (userId: string) =>
      (await h.db.select({ id: authSessions.id }).from(authSessions).where(eq(authSessions.userId, userId))).map((r) => r.id);

    it('account: deleting needs the typed email, then removes everything the user owns and the session is dead', async () => {
      const { session, sids } = await userWithSessions('leaving@example.test', 2);
      await seedData(session, 'gone');
      await createResetLink(h.db, 'leaving@example.test');
      const stay = await userWithSessions('staying@example.test', 1);
      await seedData(stay.session, 'kept');

      const wrong = await deleteAccount(h.db, session, { confirm: 'someone@example.test' }).catch((e) => e);
      expect(wrong).toBeInstanceOf(AppError);
      expect(wrong).toMatchObject({ status: 400, field: 'confirm' });
      expect(wrong.message).toMatch(/^confirm: type your account email exactly/);
      expect(await findUserById(h.db, session.user.id)).not.toBeNull();

      await deleteAccount(h.db, session, { confirm: ' Leaving@Example.test ' });
      expect(await findUserByEmail(h.db, 'leaving@example.test')).toBeNull();
      expect(await findLiveAuthSession(h.db, sids[0]!)).toBeNull();
      expect(await listConversations(h.db, session.user.id)).toEqual([]);
      expect(await h.db.select().from(notes).where(eq(notes.userId, session.user.id))).toEqual([]);
      expect(await h.db.select().from(toolCalls).where(eq(toolCalls.userId, session.user.id))).toEqual([]);
      expect(await h.db.select().from(passwordResetTokens).where(eq(passwordResetTokens.userId, session.user.id))).toEqual([]);
      expect(await listSids(session.user.id)).toEqual([]);
      expect(await signsIn('leaving@example.test', PASSWORD)).toBe(false);
      // The other account is untouched.
      expect(await listConversations(h.db, stay.session.user.id)).toHaveLength(1);
      expect(await h.db.select().from(messages)).not.toHaveLength(0);
    });

    it('reset: an operator link works once, expires, is stored only as a hash, and ends every session', async () => {
      const { sids } = await userWithSessions('forgot@example.test', 2);
      expect(await createResetLink(h.db, 'nobody@example.test')).toBeNull();
      const link = (await createResetLink(h.db, 'forgot@example.test'))!;
      const url = new URL(link.url);
      expect(url.origin).toBe('http://localhost:3000');
      expect(url.pathname).toBe('/reset-password');
      const token = url.searchParams.get('token')!;
      expect(token.length).toBeGreaterThanOrEqual(43); // 256 bits
      const rows = await h.db.select().from(passwordResetTokens);
      expect(rows.some((r) => r.tokenHash === token)).toBe(false);
      expect(rows.some((r) => r.tokenHash === createHash('sha256').update(token).digest('hex'))).toBe(true);

      expect(await isResetLinkUsable(h.db, token)).toBe(true);
      await resetPassword(h.db, { token, password: 'brand new password' });
      expect(await signsIn('forgot@example.test', 'brand new password')).toBe(true);
      expect(await findLiveAuthSession(h.db, sids[0]!)).toBeNull();
      expect(await findLiveAuthSession(h.db, sids[1]!)).toBeNull();
      const again = await resetPassword(h.db, { token, password: 'third password' }).catch((e) => e);
      expect(again).toMatchObject({ status: 400, field: 'token' });
      expect(await isResetLinkUsable(h.db, token)).toBe(false);

      // Expired after an hour; a newer link replaces an older one.
      const tokenOf = (l: { url: string } | null) => new URL(l!.url).searchParams.get('token')!;
      const first = tokenOf(await createResetLink(h.db, 'forgot@example.test'));
      const late = new Date(Date.now() + RESET_TOKEN_TTL_MS + 1_000);
      expect(await resetPassword(h.db, { token: first, password: 'late password' }, late).catch((e) => e)).toMatchObject({ status: 400 });
      const second = tokenOf(await createResetLink(h.db, 'forgot@example.test'));
      expect(await isResetLinkUsable(h.db, first)).toBe(false);
      expect(await isResetLinkUsable(h.db, second)).toBe(true);
      expect(await signsIn('forgot@example.test', 'late password')).toBe(false);
    });
  });
}
