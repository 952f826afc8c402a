import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { listActivity } from '@/db/queries/audit';
import { endAuthSession } from '@/db/queries/auth-sessions';
import { createConversation } from '@/db/queries/conversations';
import { createUser } from '@/db/queries/users';
import type { StoredAuditGrant } from '@/db/stored-json';
import { getAuditKeyring } from '@/lib/audit/key';
import { verifyChain } from '@/lib/audit/verify';
import { constraintFor } from '@/lib/consent/constraints';
import { logGrantsEndedAtSignOut } from '@/lib/consent/grant-audit';
import type { ConversationToolsView } from '@/lib/consent/tools-view';
import { openRouteRuntime } from '@/test/route-runtime';
import { sessionCookie } from '@/test/route-session';

/**
 * Every grant change a person makes through PUT / DELETE …/grants — and the end of their grants
 * at sign-out — is in their audit log, with the scope, what changed, by whom and the settings.
 */

const ORIGIN = 'http://localhost';

describe('grant changes in the audit log', () => {
  let h: DbHandle;
  let routes: { grants: typeof import('./route'); grant: typeof import('./[grantId]/route') };

  beforeAll(async () => {
    h = await openRouteRuntime('grant-audit');
    routes = { grants: await import('./route'), grant: await import('./[grantId]/route') };
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await h?.close();
  });

  async function signedIn() {
    const user = (await createUser(h.db, { email: `ga-${randomBytes(6).toString('hex')}@example.test` }))!;
    const { cookie, sid } = await sessionCookie(h.db, user.id);
    const conversation = await createConversation(h.db, { userId: user.id, model: 'demo', title: 'Groceries' });
    return { cookie, id: conversation.id, userId: user.id, sid };
  }

  const req = (method: string, cookie: string, body?: unknown) =>
    new Request(`${ORIGIN}/api/x`, {
      method,
      headers: { cookie, origin: ORIGIN, ...(body !== undefined && { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const put = async (u: { cookie: string; id: string }, body: unknown): Promise<ConversationToolsView> => {
    const res = await routes.grants.PUT(req('PUT', u.cookie, body), { params: Promise.resolve({ id: u.id }) });
    expect(res.status, await res.clone().text()).toBe(200);
    return res.json();
  };
  const grantEntries = async (userId: string): Promise<StoredAuditGrant[]> =>
    (await listActivity(h.db, userId, {}, 100)).reverse().flatMap((r) => (r.content.kind === 'grant' ? [r.content] : []));

  it('logs created, auto-approve on, constraint, revoked, switched off and on, and ended at sign-out; the chain verifies', async () => {
    const alice = await signedIn();
    await put(alice, { scope: 'tool:builtin-notes/create', enabled: true });
    await put(alice, { scope: 'tool:builtin-notes/create', enabled: true, autoApprove: true });
    // One of the three forms the server accepts (lib/consent/constraints.ts): an exact value.
    const constraint = constraintFor({ kind: 'exact', field: 'title', value: 'Shopping' });
    const v = await put(alice, { scope: 'tool:builtin-notes/create', enabled: true, autoApprove: true, constraint });
    const grantId = v.servers.find((s) => s.id === 'builtin-notes')!.tools.find((t) => t.name === 'create')!.grant!.id;
    const revoked = await routes.grant.DELETE(req('DELETE', alice.cookie), { params: Promise.resolve({ id: alice.id, grantId }) });
    expect(revoked.status).toBe(200);
    // A second revoke changes nothing and logs nothing.
    await routes.grant.DELETE(req('DELETE', alice.cookie), { params: Promise.resolve({ id: alice.id, grantId }) });
    await put(alice, { scope: 'tool:builtin-notes/search', enabled: false });
    await put(alice, { scope: 'tool:builtin-notes/search', enabled: true });
    await put(alice, { scope: 'tool:builtin-notes/update', enabled: true, expiresIn: '1h' });
    await endAuthSession(h.db, alice.sid, new Date(), logGrantsEndedAtSignOut(await getAuditKeyring()));

    const entries = await grantEntries(alice.userId);
    expect(entries.map((e) => [e.change, e.scope])).toEqual([
      ['created', 'tool:builtin-notes/create'],
      ['auto_approve_on', 'tool:builtin-notes/create'],
      ['constraint', 'tool:builtin-notes/create'],
      ['revoked', 'tool:builtin-notes/create'],
      ['switched_off', 'tool:builtin-notes/search'],
      ['switched_on', 'tool:builtin-notes/search'],
      ['created', 'tool:builtin-notes/update'],
      ['ended_at_sign_out', 'tool:builtin-notes/update'],
    ]);
    for (const e of entries) {
      expect(e).toMatchObject({
        by: alice.userId,
        conversation: { id: alice.id, title: 'Groceries' },
        server: { id: 'builtin-notes', name: 'Notes' },
      });
    }
    expect(entries[2]).toMatchObject({
      grantId,
      tool: 'create',
      sessionId: alice.sid,
      settings: { autoApprove: true, constraint, expiresIn: '12h' },
    });
    expect(entries[4]).toMatchObject({ grantId: null, tool: 'search', settings: null });
    expect(await verifyChain(h.db, await getAuditKeyring(), alice.userId)).toMatchObject({ ok: true, checked: 8 });
  });

  it('logs nothing for a refused change', async () => {
    const bob = await signedIn();
    const res = await routes.grants.PUT(req('PUT', bob.cookie, { scope: 'tool:builtin-notes/delete', enabled: true, autoApprove: true }), {
      params: Promise.resolve({ id: bob.id }),
    });
    expect(res.status).toBe(400);
    expect(await grantEntries(bob.userId)).toEqual([]);
  });
});
