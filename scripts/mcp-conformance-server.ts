/**
 * The server under test for the official MCP conformance runner's *server* scenarios
 * (`npm run test:conformance`, scripts/test-conformance.mjs): Switchboard's own `/mcp`, the real
 * route handler (app/mcp/route.ts → the app's runtime, as `next start` serves it), for a person
 * who added the reference upstream server (test/fixtures/conformance-upstream.ts) and exposed all
 * of its tools through a personal access token, with the profile's "own names" switch on (the
 * scenarios call `test_simple_text`, not `conformance__test_simple_text`) and its resources and
 * prompts shared (`content`: the scenarios list and read them).
 *
 * In front of the route, on 127.0.0.1, what production has in front of it and what the runner
 * cannot do: proxy.ts's Host check (lib/http/host.ts, the DNS-rebinding defence every request
 * passes in `next start`) and the `Authorization: Bearer <token>` header, which the runner has no
 * option to send. Nothing else is changed on the way.
 *
 * Prints `READY <url>` on stdout once it answers; stops on SIGTERM or when stdin closes.
 * Database: DATABASE_URL when set (a migrated one), else a fresh embedded data folder.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

if (!process.env.DATABASE_URL) process.env.SWITCHBOARD_DATA_DIR = mkdtempSync(path.join(os.tmpdir(), 'sb-conformance-server-'));
else {
  process.env.AUTH_SECRET ??= randomBytes(32).toString('base64url');
  process.env.SECRETS_KEY ??= randomBytes(32).toString('base64');
  process.env.AUDIT_KEY ??= randomBytes(32).toString('base64');
}
// The upstream fixture lives on loopback, as the e2e run's servers do.
process.env.MCP_ALLOW_LOOPBACK = 'true';
process.env.APP_URL = '';
process.env.AUTH_URL = '';
// The runner sends many requests in a few seconds; the per-client limit is not what is tested.
process.env.SWITCHBOARD_LIMITS = JSON.stringify({ mcpCallsPerMinute: 10_000, mcpConcurrentCalls: 100 });

async function main() {
  const { createUser } = await import('@/db/queries/users');
  const { updateServer } = await import('@/db/queries/servers');
  const { createAccessToken } = await import('@/lib/account/access-tokens');
  const { resolveProfile } = await import('@/lib/gateway/profile');
  const { hostRefusal, requestedHost } = await import('@/lib/http/host');
  const { addServer, enableServerTools, refreshServer } = await import('@/lib/servers/service');
  const { getSecretBox } = await import('@/lib/secrets/secret-box');
  const { getRuntime } = await import('@/lib/server/runtime');
  const route = await import('@/app/mcp/route');
  const { startConformanceUpstream } = await import('@/test/fixtures/conformance-upstream');
  const { listenOnLoopback, readBody, sendWebResponse, toWebRequest } = await import('@/test/fixtures/node-web-adapter');

  const rt = await getRuntime();
  const db = rt.handle.db;
  const upstream = await startConformanceUpstream();
  const user = (await createUser(db, { email: `conformance-${randomBytes(4).toString('hex')}@example.test`, plan: 'enterprise' }))!;
  const ctx = {
    db,
    box: await getSecretBox(),
    remote: rt.tools.remote,
    builtinListing: rt.tools.builtinListing,
    allowLoopback: true,
  };
  const added = await addServer(ctx, user.id, { name: 'Conformance reference server', namespace: 'conformance', url: upstream.url });
  if (added.status !== 'connected') throw new Error(`the reference server did not connect: ${added.lastError}`);
  // The person vouches for it both ways (its annotations and its content), as for a server they run themselves.
  await updateServer(db, user.id, added.id, { trust: 'trusted', trustContent: true }, { urlChanged: false });
  const listed = await refreshServer(ctx, user.id, added.id);
  await enableServerTools(ctx, user.id, added.id, Object.fromEntries(listed.tools.map((t) => [t.name, t.fingerprint])));
  const person = { id: user.id, plan: user.plan };
  const profile = await resolveProfile(
    { db, host: rt.tools.host },
    person,
    listed.tools.map((t) => `conformance__${t.name}`),
  );
  const runner = { name: 'conformance runner', expiresIn: '7d' as const, profile: { ...profile, ownNames: true, content: true } };
  const { token } = await createAccessToken(db, person, runner);

  const handlers = { GET: route.GET, POST: route.POST, DELETE: route.DELETE } as const;
  const front = await listenOnLoopback(async (req, res) => {
    const body = await readBody(req);
    const abort = new AbortController();
    res.on('close', () => abort.abort());
    const request = toWebRequest(req, body, abort.signal);
    const refusal = hostRefusal(requestedHost(request.headers));
    if (refusal) {
      res.writeHead(403, { 'content-type': 'text/plain; charset=utf-8' }).end(refusal);
      return;
    }
    const handler = new URL(request.url).pathname === '/mcp' ? handlers[req.method as keyof typeof handlers] : undefined;
    if (!handler) {
      res.writeHead(404).end();
      return;
    }
    request.headers.set('authorization', `Bearer ${token}`);
    await sendWebResponse(res, await handler(request));
  });
  console.log(`READY http://localhost:${front.port}/mcp`);

  const stop = async () => {
    await front.close().catch(() => {});
    await upstream.close().catch(() => {});
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
  process.stdin.on('end', () => void stop());
  process.stdin.resume();
}

main().catch((error: unknown) => {
  console.error('[conformance-server]', error);
  process.exit(1);
});
