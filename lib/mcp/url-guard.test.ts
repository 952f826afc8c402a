import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import { classifyFailure, describeFailure } from './failures';
import { createGuardedFetch, hostProblem, NOT_PUBLIC, urlProblem, UrlRefused } from './url-guard';

/**
 * No test here may open a connection to a non-loopback address, even if the guard were broken:
 * decisions are tested with an injected resolver and no socket; redirects to private addresses
 * with an injected transport; end to end only against loopback servers.
 */

type Resolver = NonNullable<Parameters<typeof hostProblem>[2]>;

/** A resolver from a table: no DNS query leaves the machine. */
function tableResolver(table: Record<string, string[]>): Resolver {
  return (hostname, options, callback) => {
    const addresses = table[hostname];
    if (!addresses) return callback(Object.assign(new Error(`unknown ${hostname}`), { code: 'ENOTFOUND' }), '');
    const list = addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    if (options.all) return callback(null, list);
    callback(null, list[0]!.address, list[0]!.family);
  };
}

const RESOLVER = tableResolver({
  'public.example.test': ['93.184.216.34'],
  'public6.example.test': ['2606:4700::1111'],
  'internal.example.test': ['10.0.0.1'],
  'metadata.example.test': ['169.254.169.254'],
  'half-private.example.test': ['93.184.216.34', '192.168.0.10'],
  'ula.example.test': ['fd00:ec2::254'],
  'mapped.example.test': ['::ffff:127.0.0.1'],
  'cgnat.example.test': ['100.100.100.200'],
  'loop.example.test': ['127.0.0.1'],
  localhost: ['127.0.0.1'],
});

async function verdict(url: string, allowLoopback = false): Promise<string | null> {
  const early = urlProblem(url, { allowLoopback });
  if (early) return early;
  return hostProblem(new URL(url).hostname, { allowLoopback }, RESOLVER);
}

describe('URL guard decisions (no sockets)', () => {
  const refused: [string, RegExp][] = [
    ['https://169.254.169.254/latest/meta-data/', /link-local/],
    ['https://[::ffff:127.0.0.1]/', /loopback/],
    ['https://[::ffff:169.254.169.254]/', /link-local/],
    ['https://127.0.0.1/', /loopback/],
    ['https://127.0.0.2:8443/mcp', /loopback/],
    ['https://2130706433/', /loopback/], // decimal 127.0.0.1
    ['https://0177.0.0.1/', /loopback/], // octal
    ['https://0x7f.0.0.1/', /loopback/], // hex
    ['https://127.1/', /loopback/], // short form
    ['https://[::1]/', /loopback/],
    ['https://localhost/', /localhost/],
    ['https://api.localhost/', /localhost/],
    ['https://10.0.0.1/', /private/],
    ['https://172.16.5.4/', /private/],
    ['https://192.168.1.1/', /private/],
    ['https://100.64.0.1/', /carrier-grade NAT/],
    ['https://0.0.0.0/', /unspecified/],
    ['https://255.255.255.255/', /broadcast/],
    ['https://224.0.0.1/', /multicast/],
    ['https://192.0.0.192/', /reserved/], // Oracle cloud metadata
    ['https://[fd00:ec2::254]/', /unique local/], // AWS metadata over IPv6
    ['https://[fe80::1]/', /link-local/],
    ['https://[fc00::1]/', /unique local/],
    ['https://[ff02::1]/', /multicast/],
    ['https://[::]/', /unspecified/],
    ['https://[::7f00:1]/', /reserved/], // IPv4-compatible IPv6
    ['https://[64:ff9b::a00:1]/', /reserved/], // NAT64 to 10.0.0.1
    ['https://[2002:a00:1::]/', /reserved/], // 6to4 of 10.0.0.1
    ['https://internal.example.test/mcp', /10\.0\.0\.1|private/],
    ['https://metadata.example.test/', /link-local/],
    ['https://half-private.example.test/', /private/], // one bad answer is enough
    ['https://ula.example.test/', /unique local/],
    ['https://mapped.example.test/', /loopback/],
    ['https://cgnat.example.test/', /carrier-grade NAT/],
    ['http://public.example.test/mcp', /only https/],
    ['ftp://public.example.test/', /scheme "ftp"/],
    ['file:///etc/passwd', /scheme "file"/],
    ['https://user:pass@public.example.test/', /user name or password/],
    ['https://nowhere.example.test/', /does not resolve/],
    ['not a url', /not a valid URL/],
  ];
  const allowed = [
    'https://public.example.test/mcp',
    'https://public6.example.test/',
    'https://93.184.216.34/',
    'https://[2606:4700::1111]/mcp',
  ];

  it.each(refused)('refuses %s', async (url, why) => {
    expect(await verdict(url)).toMatch(why);
  });

  it.each(allowed)('allows %s', async (url) => {
    expect(await verdict(url)).toBeNull();
  });

  it('allows loopback, over http too, only when told to (tests), and still refuses private ranges then', async () => {
    expect(await verdict('http://127.0.0.1:8080/mcp', true)).toBeNull();
    expect(await verdict('http://localhost:8080/mcp', true)).toBeNull();
    expect(await verdict('https://loop.example.test/', true)).toBeNull();
    expect(await verdict('http://10.0.0.1/', true)).toMatch(/private/);
    expect(await verdict('http://public.example.test/', true)).toMatch(/only https/);
    expect(await verdict('https://loop.example.test/')).toMatch(/loopback/);
  });
});

describe('redirects (injected transport: nothing leaves the process)', () => {
  function transportFrom(hops: Record<string, { status: number; location?: string }>) {
    const seen: { url: string; headers: Record<string, string>; method: string }[] = [];
    const transport = async (url: URL, init: RequestInit) => {
      seen.push({ url: url.toString(), headers: Object.fromEntries(new Headers(init.headers)), method: init.method ?? 'GET' });
      const hop = hops[url.toString()] ?? { status: 200 };
      return new Response(hop.status === 200 ? 'ok' : null, {
        status: hop.status,
        headers: hop.location ? { location: hop.location } : {},
      });
    };
    return { seen, transport };
  }

  it('re-checks every hop: a redirect from an allowed host to a private one is refused before it is sent', async () => {
    const { seen, transport } = transportFrom({ 'https://public.example.test/mcp': { status: 302, location: 'https://10.0.0.1/admin' } });
    const guarded = createGuardedFetch({ transport });
    const err = await guarded('https://public.example.test/mcp').catch((e) => e);
    expect(err).toBeInstanceOf(UrlRefused);
    expect(err.message).toMatch(/10\.0\.0\.1.*private/);
    expect(seen.map((s) => s.url)).toEqual(['https://public.example.test/mcp']);
  });

  it('refuses a redirect to http or to the metadata address', async () => {
    for (const location of ['http://public.example.test/next', 'https://169.254.169.254/', 'https://[::ffff:a9fe:a9fe]/']) {
      const { seen, transport } = transportFrom({ 'https://public.example.test/': { status: 307, location } });
      await expect(createGuardedFetch({ transport })('https://public.example.test/')).rejects.toBeInstanceOf(UrlRefused);
      expect(seen).toHaveLength(1);
    }
  });

  it('drops credentials and custom headers on a redirect to another origin, keeps them on the same origin', async () => {
    const { seen, transport } = transportFrom({
      'https://public.example.test/a': { status: 307, location: '/b' },
      'https://public.example.test/b': { status: 308, location: 'https://public6.example.test/c' },
    });
    const headers = { authorization: 'Bearer secret', 'x-api-key': 'k', accept: 'application/json', 'mcp-protocol-version': '2026-07-28' };
    await createGuardedFetch({ transport })('https://public.example.test/a', { method: 'POST', headers, body: '{}' });
    expect(seen.map((s) => [s.url, s.method, s.headers.authorization ?? null, s.headers['x-api-key'] ?? null])).toEqual([
      ['https://public.example.test/a', 'POST', 'Bearer secret', 'k'],
      ['https://public.example.test/b', 'POST', 'Bearer secret', 'k'],
      ['https://public6.example.test/c', 'POST', null, null],
    ]);
    expect(seen[2]!.headers).toMatchObject({ accept: 'application/json', 'mcp-protocol-version': '2026-07-28' });
  });

  it("hands a redirect back unfollowed with redirect: 'manual' (the first URL still checked)", async () => {
    const { seen, transport } = transportFrom({
      'https://auth.example.test/authorize': { status: 302, location: 'https://app.example.test/api/oauth/callback?code=c' },
    });
    const guarded = createGuardedFetch({ transport });
    const answer = await guarded('https://auth.example.test/authorize', { redirect: 'manual' });
    expect([answer.status, answer.headers.get('location')]).toEqual([302, 'https://app.example.test/api/oauth/callback?code=c']);
    expect(seen).toHaveLength(1);
    await expect(guarded('https://10.0.0.1/authorize', { redirect: 'manual' })).rejects.toBeInstanceOf(UrlRefused);
  });

  it('stops after too many redirects', async () => {
    const { transport } = transportFrom({ 'https://public.example.test/loop': { status: 302, location: '/loop' } });
    await expect(createGuardedFetch({ transport, maxRedirects: 3 })('https://public.example.test/loop')).rejects.toThrow(
      /more than 3 times/,
    );
  });
});

describe('end to end against loopback only', () => {
  let server: Server;
  let port: number;
  const requests: { url: string; headers: IncomingHttpHeaders }[] = [];
  let connections = 0;
  /** What the guard logged: the detail of each refusal, which the person is not told. */
  const warned: string[] = [];

  beforeAll(async () => {
    vi.spyOn(console, 'warn').mockImplementation((...args: unknown[]) => void warned.push(args.map(String).join(' ')));
    server = createServer((req, res) => {
      requests.push({ url: req.url ?? '', headers: req.headers });
      if (req.url === '/hop') return res.writeHead(302, { location: `http://localhost:${port}/landed` }).end();
      res.writeHead(200, { 'content-type': 'text/plain' }).end('hello');
    });
    server.on('connection', () => connections++);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await new Promise<void>((r) => server.close(() => r()));
  });

  it('refuses loopback when it is not allowed, without connecting', async () => {
    const before = connections;
    await expect(createGuardedFetch()(`http://127.0.0.1:${port}/`)).rejects.toBeInstanceOf(UrlRefused);
    await expect(createGuardedFetch()(`https://127.0.0.1:${port}/`)).rejects.toThrow(/loopback/);
    expect(connections).toBe(before);
  });

  it('checks the address at connect time: a name that resolves to loopback is refused by the connection itself', async () => {
    // First answer public, then loopback: a check made before connecting would have passed.
    let calls = 0;
    const rebinding: Resolver = (hostname, options, callback) =>
      tableResolver({ [hostname]: [calls++ === 0 ? '93.184.216.34' : '127.0.0.1'] })(hostname, options, callback);
    expect(await hostProblem('rebind.example.test', {}, rebinding)).toBeNull();
    const before = connections;
    const err = await createGuardedFetch({ resolve: rebinding })(`https://rebind.example.test:${port}/`).catch((e) => e);
    const causes: unknown[] = [];
    for (let e: unknown = err; e; e = (e as { cause?: unknown }).cause) causes.push(e);
    expect(causes.some((e) => e instanceof UrlRefused && e.reason === NOT_PUBLIC)).toBe(true);
    expect(warned.join('\n')).toMatch(/rebind\.example\.test.*loopback/);
    expect(connections).toBe(before);
  });

  it('says the same for a name resolving to an internal address as for one that does not resolve; the detail is logged', async () => {
    const guarded = createGuardedFetch({ resolve: RESOLVER });
    const said = async (host: string) => {
      const url = `https://${host}/mcp`;
      const err: unknown = await guarded(url).catch((e: unknown) => e);
      return { kind: classifyFailure(err), text: describeFailure('Tracker', url, 'list its tools', err).replace(host, '<host>') };
    };
    const internal = await said('internal.example.test');
    const missing = await said('nowhere.example.test');
    expect(internal).toEqual(missing);
    expect(internal).toEqual({ kind: 'unreachable', text: `Could not reach Tracker (https://<host>) to list its tools: ${NOT_PUBLIC}.` });
    for (const host of ['metadata.example.test', 'half-private.example.test', 'loop.example.test'])
      expect(await said(host)).toEqual(missing);
    expect(warned.join('\n')).toMatch(/internal\.example\.test.*private network address \(10\.0\.0\.1\)/);
  });

  it('follows a redirect between loopback forms when loopback is allowed, dropping credentials across origins', async () => {
    const res = await createGuardedFetch({ allowLoopback: true })(`http://127.0.0.1:${port}/hop`, {
      headers: { authorization: 'Bearer t0k', 'x-custom': '1', accept: 'text/plain' },
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('hello');
    const [first, second] = requests.slice(-2);
    expect(first).toMatchObject({ url: '/hop', headers: { authorization: 'Bearer t0k', 'x-custom': '1' } });
    expect(second!.url).toBe('/landed');
    expect(second!.headers.authorization).toBeUndefined();
    expect(second!.headers['x-custom']).toBeUndefined();
    expect(second!.headers.accept).toBe('text/plain');
  });
});
