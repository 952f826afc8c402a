import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { createConversation } from '@/db/queries/conversations';
import { addModelTokens } from '@/db/queries/model-usage';
import { addMembership, insertOrg, roleIn } from '@/db/queries/orgs';
import { insertRun } from '@/db/queries/runs';
import { insertToolCalls } from '@/db/queries/tool-calls';
import { createUser, type UserRow } from '@/db/queries/users';
import { auditEntries, runs, toolCalls, users } from '@/db/schema';
import { argsHash } from '@/lib/agent/args-hash';
import { appendAudit } from '@/lib/audit/append';
import { auditKeyring } from '@/lib/audit/key';
import { signUp } from '@/lib/auth/signup';
import { openTestDb, TEST_DATABASES } from '@/test/db';

import { orgAudit, orgUsage } from './admin';
import { DEFAULT_ORG_NAME } from './default-org';
import { acceptInvitationToken, createInvitation, INVITATION_TTL_MS } from './invitations';
import { joinByEmailDomain } from './join';
import { changeRole, createOrg, listMyOrgs, orgSettingsSchema, removeMember, updateOrgSettings } from './orgs';

/** Organizations, slice 1: the default organization, roles, invitation links, the email-domain join. */

const ORIGIN = 'http://localhost:3000';
const tokenOf = (url: string) => new URL(url).pathname.split('/').pop()!;

for (const { kind, available } of TEST_DATABASES) {
  describe.skipIf(!available)(`organizations on ${kind}`, () => {
    let h: DbHandle;
    let n = 0;
    const person = async () => (await createUser(h.db, { email: `p${++n}@org.test` }))!;
    /** A fresh organization with an owner, an admin and a member. */
    async function team() {
      const org = await insertOrg(h.db, { name: `Team ${++n}` });
      const [owner, admin, member, outsider] = [await person(), await person(), await person(), await person()];
      await addMembership(h.db, org.id, owner.id, 'owner');
      await addMembership(h.db, org.id, admin.id, 'admin');
      await addMembership(h.db, org.id, member.id, 'member');
      return { org, owner, admin, member, outsider };
    }

    beforeAll(async () => {
      h = await openTestDb(kind);
    });
    afterAll(async () => h?.close());

    it("the operator's first account owns the default organization; later accounts do not join it", async () => {
      const first = await signUp(h.db, { email: 'operator@org.test', password: 'the operator password' }, { client: null });
      const second = await signUp(h.db, { email: 'second@org.test', password: 'the second password' }, { client: null });
      expect(await listMyOrgs(h.db, first.id)).toEqual([expect.objectContaining({ name: DEFAULT_ORG_NAME, role: 'owner' })]);
      expect(await listMyOrgs(h.db, second.id)).toEqual([]);
    });

    it('only an owner or admin invites; an outsider gets 404 for the id, as for one that does not exist', async () => {
      const { org, admin, member, outsider } = await team();
      await expect(createInvitation(h.db, org.id, member.id, ORIGIN)).rejects.toMatchObject({
        type: 'forbidden',
        message: "Only an organization's owner or admin can invite people; you are a member.",
      });
      await expect(createInvitation(h.db, org.id, outsider.id, ORIGIN)).rejects.toMatchObject({ type: 'not_found' });
      const other = await team();
      await expect(createInvitation(h.db, other.org.id, admin.id, ORIGIN)).rejects.toMatchObject({ type: 'not_found' });
      const link = await createInvitation(h.db, org.id, admin.id, ORIGIN);
      expect(link.url).toMatch(/^http:\/\/localhost:3000\/invitations\/[A-Za-z0-9_-]{43}$/);
    });

    it('an invitation joins once, as a member; a second use, an expired link and a member reusing it are refused', async () => {
      const { org, owner, member, outsider } = await team();
      const now = new Date();
      const { url } = await createInvitation(h.db, org.id, owner.id, ORIGIN, now);
      // Someone who already belongs leaves the link unused for the person it was meant for.
      await expect(acceptInvitationToken(h.db, tokenOf(url), member.id, now)).rejects.toMatchObject({ type: 'conflict' });
      expect(await acceptInvitationToken(h.db, tokenOf(url), outsider.id, now)).toMatchObject({ orgId: org.id, role: 'member' });
      expect(await roleIn(h.db, org.id, outsider.id)).toBe('member');
      const late = await person();
      await expect(acceptInvitationToken(h.db, tokenOf(url), late.id, now)).rejects.toMatchObject({
        type: 'not_found',
        message: 'This invitation link has expired or was already used. Ask for a new one.',
      });

      const expiring = await createInvitation(h.db, org.id, owner.id, ORIGIN, now);
      const after = new Date(now.getTime() + INVITATION_TTL_MS + 1000);
      await expect(acceptInvitationToken(h.db, tokenOf(expiring.url), late.id, after)).rejects.toMatchObject({ type: 'not_found' });
      expect(await roleIn(h.db, org.id, late.id)).toBeNull();
      await expect(acceptInvitationToken(h.db, 'not-a-token', late.id, now)).rejects.toMatchObject({ type: 'not_found' });
    });

    it('roles: a member changes none, an admin never makes or touches an owner, the last owner stays', async () => {
      const { org, owner, admin, member, outsider } = await team();
      await expect(changeRole(h.db, org.id, member.id, member.id, 'admin')).rejects.toMatchObject({ type: 'forbidden' });
      await expect(changeRole(h.db, org.id, outsider.id, member.id, 'admin')).rejects.toMatchObject({ type: 'not_found' });
      await expect(changeRole(h.db, org.id, admin.id, member.id, 'owner')).rejects.toMatchObject({ type: 'forbidden' });
      await expect(changeRole(h.db, org.id, admin.id, owner.id, 'member')).rejects.toMatchObject({ type: 'forbidden' });
      await expect(changeRole(h.db, org.id, admin.id, outsider.id, 'member')).rejects.toMatchObject({ type: 'not_found' });
      expect(await changeRole(h.db, org.id, admin.id, member.id, 'admin')).toEqual({ role: 'admin' });
      await expect(changeRole(h.db, org.id, owner.id, owner.id, 'admin')).rejects.toMatchObject({
        type: 'conflict',
        message: 'This is the only owner: make someone else an owner first.',
      });
      await changeRole(h.db, org.id, owner.id, admin.id, 'owner');
      expect(await changeRole(h.db, org.id, owner.id, owner.id, 'member')).toEqual({ role: 'member' });
      expect(await roleIn(h.db, org.id, owner.id)).toBe('member');
    });

    it('two owners demoting or removing each other at once: one wins, the organization always keeps an owner', async () => {
      for (const second of ['demote', 'remove'] as const) {
        const { org, owner } = await team();
        const other = await person();
        await addMembership(h.db, org.id, other.id, 'owner');
        const outcomes = await Promise.allSettled([
          changeRole(h.db, org.id, owner.id, other.id, 'member'),
          second === 'demote' ? changeRole(h.db, org.id, other.id, owner.id, 'member') : removeMember(h.db, org.id, other.id, owner.id),
        ]);
        expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
        const refused = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
        // The loser finds itself the only owner, or already demoted by the winner (then it may not manage members).
        expect(String(refused.reason)).toMatch(/only owner|Only an owner|No organization|No member|you are a member/);
        const roles = [await roleIn(h.db, org.id, owner.id), await roleIn(h.db, org.id, other.id)];
        expect(roles.filter((r) => r === 'owner')).toHaveLength(1);
      }
    });

    it('removing a member: an admin removes members, never an owner; the last owner cannot leave', async () => {
      const { org, owner, admin, member } = await team();
      await expect(removeMember(h.db, org.id, member.id, admin.id)).rejects.toMatchObject({ type: 'forbidden' });
      await expect(removeMember(h.db, org.id, admin.id, owner.id)).rejects.toMatchObject({ type: 'forbidden' });
      await expect(removeMember(h.db, org.id, owner.id, owner.id)).rejects.toMatchObject({ type: 'conflict' });
      await removeMember(h.db, org.id, admin.id, member.id);
      expect(await roleIn(h.db, org.id, member.id)).toBeNull();
    });

    /** One turn of the person with one tool call, audited, and some model tokens, all at `at`. */
    async function activity(userId: string, tool: string, at: Date) {
      const conversation = await createConversation(h.db, { userId, model: 'demo' });
      const run = (await insertRun(h.db, {
        conversationId: conversation.id,
        userId,
        sessionId: null,
        model: 'demo',
        leaseOwner: 'test',
        leaseExpiresAt: at,
      }))!;
      const [call] = await insertToolCalls(h.db, [
        {
          runId: run.id,
          conversationId: conversation.id,
          userId,
          step: 1,
          position: 0,
          toolUseId: `tu_${tool}`,
          modelName: `fx__${tool}`,
          input: {},
          argsHash: argsHash({}),
          serverId: 'fx',
          serverName: 'Fixture',
          tool,
          trust: 'untrusted',
          annotations: {},
          status: 'succeeded',
        },
      ]);
      const iso = at.toISOString();
      await appendAudit(h.db, auditKeyring(randomBytes(32)), [
        {
          userId,
          content: {
            v: 1,
            kind: 'tool_call',
            toolCallId: call!.id,
            runId: run.id,
            conversation: { id: conversation.id, title: 'T' },
            server: { id: 'fx', name: 'Fixture' },
            tool,
            modelName: `fx__${tool}`,
            trust: 'untrusted',
            arguments: { proposed: {}, proposedHash: 'h', executed: {}, executedHash: 'h', edited: false },
            verdict: { kind: 'allowed', rule: null, by: userId, decision: 'allow_once', reason: null, warnings: [] },
            grant: { id: null, constraint: null },
            outcome: 'succeeded',
            timing: { proposedAt: iso, startedAt: iso, endedAt: iso, durationMs: 0 },
            attempts: 1,
            result: { isError: false, bytes: 1, sha256: 'x', totalChars: null, truncated: false },
          },
        },
      ]);
      await h.db.update(runs).set({ status: 'completed', createdAt: at }).where(eq(runs.id, run.id));
      await h.db.update(toolCalls).set({ createdAt: at }).where(eq(toolCalls.id, call!.id));
      await h.db.update(auditEntries).set({ at }).where(eq(auditEntries.toolCallId, call!.id));
      await addModelTokens(h.db, userId, 100, at);
    }

    it("the admin pages show a member's usage and audit only from when they joined, not their history before", async () => {
      const org = await insertOrg(h.db, { name: `Team ${++n}` });
      const [admin, joiner] = [await person(), await person()];
      await addMembership(h.db, org.id, admin.id, 'admin');
      // Two days before joining: their own, not the organization's.
      await activity(joiner.id, 'before', new Date(Date.now() - 2 * 86_400_000));
      await addMembership(h.db, org.id, joiner.id, 'member');
      await activity(joiner.id, 'after', new Date(Date.now() + 1_000));

      const usage = await orgUsage(h.db, org.id, admin.id);
      expect(usage.members.find((m) => m.userId === joiner.id)).toMatchObject({ turns: 1, tokens: 100, toolCalls: 1 });
      const audit = await orgAudit(h.db, org.id, admin.id);
      expect(audit.entries.filter((e) => e.userId === joiner.id).map((e) => e.tool)).toEqual(['after']);
    });

    it('the audit view pages by entry, not by a time in milliseconds: entries sharing a time are each shown once', async () => {
      const org = await insertOrg(h.db, { name: `Team ${++n}` });
      const [admin, member] = [await person(), await person()];
      await addMembership(h.db, org.id, admin.id, 'admin');
      await addMembership(h.db, org.id, member.id, 'member');
      const at = new Date(Date.now() + 1_000);
      for (const tool of ['a', 'b', 'c']) await activity(member.id, tool, at);
      const first = await orgAudit(h.db, org.id, admin.id, { limit: 2 });
      expect(first.entries).toHaveLength(2);
      expect(first.next).toBe(first.entries[1]!.id);
      const second = await orgAudit(h.db, org.id, admin.id, { limit: 2, before: first.next! });
      expect([...first.entries, ...second.entries].map((e) => e.tool).sort()).toEqual(['a', 'b', 'c']);
      expect(second.next).toBeNull();
    });

    it('anyone makes an organization and owns it; it has nobody else', async () => {
      const maker = await person();
      const made = await createOrg(h.db, maker.id, { name: 'Side project' });
      expect(made).toMatchObject({ name: 'Side project', role: 'owner' });
      expect(await listMyOrgs(h.db, maker.id)).toEqual([expect.objectContaining({ id: made.id, role: 'owner' })]);
    });

    it('the join domain: set by an admin, refused to a member and to a second organization; joins only a verified email', async () => {
      const { org, admin, member } = await team();
      const other = await team();
      // Only a domain where the setter's own email is verified; anyone may make an organization.
      await expect(updateOrgSettings(h.db, org.id, admin.id, { joinDomain: 'corp.test' })).rejects.toMatchObject({
        type: 'forbidden',
        field: 'joinDomain',
      });
      for (const [i, u] of [admin, other.admin].entries()) {
        await h.db
          .update(users)
          .set({ email: `admin${i}-${n}@corp.test`, emailVerifiedAt: new Date() })
          .where(eq(users.id, u.id));
      }
      const settings = orgSettingsSchema.safeParse({ joinDomain: '@corp.test' });
      expect(settings.error?.issues[0]).toMatchObject({
        path: ['joinDomain'],
        message: 'must be a domain like example.com (no @, no scheme)',
      });
      await expect(updateOrgSettings(h.db, org.id, member.id, { joinDomain: 'corp.test' })).rejects.toMatchObject({ type: 'forbidden' });
      // A public provider's domain never, not even by an admin verified there (so are millions of strangers).
      const gm = await team();
      await h.db
        .update(users)
        .set({ email: `gm-${n}@gmail.com`, emailVerifiedAt: new Date() })
        .where(eq(users.id, gm.admin.id));
      await expect(updateOrgSettings(h.db, gm.org.id, gm.admin.id, { joinDomain: 'gmail.com' })).rejects.toMatchObject({
        type: 'bad_request',
        field: 'joinDomain',
        message: expect.stringMatching(/^joinDomain: gmail\.com is a public email provider's/),
      });
      for (const domain of ['outlook.com', 'yahoo.co.uk', 'hotmail.fr', 'proton.me']) {
        await expect(updateOrgSettings(h.db, org.id, admin.id, { joinDomain: domain })).rejects.toMatchObject({ type: 'bad_request' });
      }
      expect(await updateOrgSettings(h.db, org.id, admin.id, orgSettingsSchema.parse({ joinDomain: 'Corp.Test' }))).toEqual({
        joinDomain: 'corp.test',
      });
      await expect(updateOrgSettings(h.db, other.org.id, other.admin.id, { joinDomain: 'corp.test' })).rejects.toMatchObject({
        type: 'conflict',
      });
      const join = (u: UserRow, email: string, emailVerified: boolean) => joinByEmailDomain(h.db, u, { email, emailVerified });
      const unverified = await person();
      expect(await join(unverified, 'una@corp.test', false)).toBeNull();
      expect(await roleIn(h.db, org.id, unverified.id)).toBeNull();
      const elsewhere = await person();
      expect(await join(elsewhere, 'eve@corp.test.evil', true)).toBeNull();
      const verified = await person();
      expect(await join(verified, 'Vic@CORP.test', true)).toBe(org.id);
      expect(await listMyOrgs(h.db, verified.id)).toEqual([expect.objectContaining({ id: org.id, role: 'member' })]);
    });
  });
}
