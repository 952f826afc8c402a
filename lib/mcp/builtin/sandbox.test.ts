import type { Client } from '@modelcontextprotocol/client';
import type { McpHttpHandler } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { call, connectInProcess } from '@/test/fixtures/builtin-mcp-client';

import { builtinAuthInfo } from './auth';
import { createSandboxServerHandler, SandboxPool } from './sandbox';

const auth = builtinAuthInfo({ userId: '11111111-1111-4111-8111-111111111111' });
const LIMIT_MS = 400;
const GRACE_MS = 400;

describe('sandbox MCP server', () => {
  let defaults: McpHttpHandler;
  let tight: McpHttpHandler;
  let client: Client;
  let limited: Client;
  beforeAll(async () => {
    defaults = createSandboxServerHandler();
    tight = createSandboxServerHandler({ timeLimitMs: LIMIT_MS, graceMs: GRACE_MS, outputLimitBytes: 1000 });
    client = await connectInProcess(defaults, auth, 'builtin://sandbox');
    limited = await connectInProcess(tight, auth, 'builtin://sandbox');
  });
  afterAll(async () => {
    await client?.close();
    await limited?.close();
    await defaults?.close();
    await tight?.close();
  });

  const run = (c: Client, code: string) => call(c, 'run_js', { code });

  it('lists run_js with side-effect-free annotations and strict schemas', async () => {
    expect(client.getProtocolEra()).toBe('modern');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['run_js']);
    const tool = tools[0]!;
    expect(tool.annotations).toEqual({
      title: 'Run JavaScript',
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
    expect(tool.inputSchema).toMatchObject({
      required: ['code'],
      additionalProperties: false,
      properties: { code: { type: 'string', maxLength: 50_000 } },
    });
    expect(tool.outputSchema).toMatchObject({ required: ['stdout', 'result', 'error', 'durationMs'], additionalProperties: false });
    expect(tool.description).toContain('2000 ms CPU, 32 MB memory, 64 KB output');
  });

  it('returns the final value as JSON and the console output', async () => {
    const r = await run(client, 'console.log("sum of", [1, 2, 3]); const o = { n: [1, 2, 3].reduce((a, b) => a + b) }; o');
    expect(r.isError).toBe(false);
    expect(r.data).toMatchObject({ stdout: 'sum of [1,2,3]\n', result: '{"n":6}', error: null });
    expect(typeof r.data!.durationMs).toBe('number');
    expect(JSON.parse(r.text)).toEqual(r.data);
  });

  it('settles a promise result and falls back to String() for values JSON cannot represent', async () => {
    expect((await run(client, '(async () => { await null; return 6 * 7 })()')).data!.result).toBe('42');
    expect((await run(client, '10n ** 20n')).data!.result).toBe('100000000000000000000');
    expect((await run(client, 'let x = 1')).data!.result).toBeNull();
    const never = await run(client, 'new Promise(() => {})');
    expect(never.data!.error).toContain('never settled');
  });

  it('reports a thrown error as data, not as a failed call', async () => {
    const r = await run(client, 'console.log("before"); null.x');
    expect(r.isError).toBe(false);
    expect(r.data!.stdout).toBe('before\n');
    expect(r.data!.error).toMatch(/^TypeError: /);
    expect(r.data!.result).toBeNull();
  });

  it('exposes no network, modules, process, timers or the host write hook', async () => {
    const r = await run(
      client,
      '[typeof fetch, typeof require, typeof process, typeof setTimeout, typeof import.meta === "undefined" ? 0 : 1, typeof __sbWrite]',
    );
    // `import.meta` is a syntax error in a script: that is the point, so check it separately.
    expect(r.data!.error).toMatch(/SyntaxError/);
    const globals = await run(
      client,
      '[typeof fetch, typeof require, typeof process, typeof setTimeout, typeof XMLHttpRequest, typeof __sbWrite]',
    );
    expect(JSON.parse(globals.data!.result)).toEqual(Array(6).fill('undefined'));
    const dyn = await run(client, 'import("node:fs")');
    expect(dyn.data!.result).toBeNull();
    expect(dyn.data!.error).toBeTruthy();
  });

  it('stops an infinite loop at the time limit and marks the call failed', async () => {
    const t0 = Date.now();
    const r = await run(limited, 'while (true) {}');
    expect(Date.now() - t0).toBeLessThan(LIMIT_MS + GRACE_MS + 500);
    expect(r.isError).toBe(true);
    expect(r.data!.error).toMatch(/^TimeLimitError: the script was stopped after 400 ms/);
    expect(r.data!.durationMs).toBeGreaterThanOrEqual(LIMIT_MS - 50);
  });

  it('stops a memory blow-up at the memory limit', async () => {
    // On the default time limit: under a loaded machine 400 ms can run out before the memory does.
    const r = await run(client, 'JSON.stringify(new Array(5e6).fill("abc")).length');
    expect(r.isError).toBe(true);
    expect(r.data!.error).toMatch(/^MemoryLimitError: the script ran out of memory \(limit 32 MB\)/);
  });

  it('hard-stops allocation-heavy code that never reaches the interrupt check', async () => {
    const t0 = Date.now();
    const r = await run(limited, 'const a = []; while (true) a.push("x".repeat(1e6) + a.length)');
    const elapsed = Date.now() - t0;
    expect(r.isError).toBe(true);
    expect(r.data!.error).toMatch(/^(TimeLimitError|MemoryLimitError)/);
    expect(elapsed).toBeLessThan(LIMIT_MS + GRACE_MS + 500);
    // The terminated worker is replaced: the next run works.
    expect((await run(limited, '1 + 1')).data!.result).toBe('2');
  });

  it('turns deep recursion into a stack overflow error without hurting the host', async () => {
    const r = await run(client, 'function f(n) { return f(n + 1) + 1 } f(0)');
    expect(r.isError).toBe(true);
    expect(r.data!.error).toMatch(/^InternalError: stack overflow/);
    expect((await run(client, '"still alive"')).data!.result).toBe('"still alive"');
  });

  it('caps console output with a marker', async () => {
    const r = await run(limited, 'for (let i = 0; i < 1000; i++) console.log("line " + i); "done"');
    expect(r.isError).toBe(false);
    expect(r.data!.result).toBe('"done"');
    const [kept, marker] = r.data!.stdout.split('\n[output truncated at 1000 bytes]');
    expect(marker).toBe('');
    expect(Buffer.byteLength(kept!)).toBe(1000);
    expect(kept!.startsWith('line 0\nline 1\n')).toBe(true);
  });

  // Security review: `throw 'x'.repeat(2**24)` gave a 16 MB error, stored as 5 MB of full_text.
  it('caps a huge thrown string at the output limit inside the worker', async () => {
    // Building 16 MB takes a while on a busy machine: this server is tight on output only.
    const roomy = createSandboxServerHandler({ outputLimitBytes: 1000, timeLimitMs: 15_000 });
    const c = await connectInProcess(roomy, auth, 'builtin://sandbox');
    try {
      const r = await run(c, "throw 'x'.repeat(2 ** 24)");
      expect(r.isError).toBe(false);
      expect(r.data!.error).toMatch(/^Uncaught "x{100}/);
      expect(r.data!.error).toMatch(/\n\[error truncated at 1000 bytes\]$/);
      expect(Buffer.byteLength(r.data!.error)).toBeLessThan(1100);
      // The whole answer stays small: the error is not carried alongside in another field.
      expect(r.text.length).toBeLessThan(3000);
    } finally {
      await c.close();
      await roomy.close();
    }
  });

  it('caps a huge error message, name, thrown object and rejection at the output limit (64 KB by default)', async () => {
    const message = await run(limited, "throw new Error('y'.repeat(2 ** 20))");
    expect(message.data!.error).toMatch(/^Error: y{100}/);
    expect(Buffer.byteLength(message.data!.error)).toBeLessThan(1100);
    const name = await run(limited, "const e = new Error('short'); e.name = 'N'.repeat(2 ** 20); throw e");
    expect(Buffer.byteLength(name.data!.error)).toBeLessThan(1100);
    const thrownObject = await run(limited, "throw { big: 'z'.repeat(2 ** 20) }");
    expect(thrownObject.data!.error).toMatch(/^Uncaught \{"big":"z+/);
    expect(Buffer.byteLength(thrownObject.data!.error)).toBeLessThan(1100);
    const rejected = await run(limited, "Promise.reject('w'.repeat(2 ** 20))");
    expect(Buffer.byteLength(rejected.data!.error)).toBeLessThan(1100);
    const byDefault = await run(client, "throw 'x'.repeat(2 ** 20)");
    expect(byDefault.data!.error).toMatch(/\n\[error truncated at 65536 bytes\]$/);
    expect(Buffer.byteLength(byDefault.data!.error)).toBeLessThan(66_000);
  });

  it('rejects code over 50k characters and unknown arguments', async () => {
    const long = await call(client, 'run_js', { code: 'x'.repeat(50_001) });
    expect(long.isError).toBe(true);
    expect(long.text).toMatch(/code: Too big: .*<=50000 characters \(received a string of 50001 characters\)/);
    const extra = await call(client, 'run_js', { code: '1', timeoutMs: 99_999 });
    expect(extra.isError).toBe(true);
    expect(extra.text).toContain('Unrecognized key: "timeoutMs"');
  });
});

describe('SandboxPool', () => {
  it('queues runs beyond maxWorkers and answers each with its own result', async () => {
    const pool = new SandboxPool({ maxWorkers: 1 });
    try {
      const results = await Promise.all([1, 2, 3].map((n) => pool.run(`${n} * 10`)));
      expect(results.map((r) => r.result)).toEqual(['10', '20', '30']);
    } finally {
      await pool.close();
    }
  });

  it('stops a run when its caller cancels', async () => {
    const pool = new SandboxPool({ timeLimitMs: 10_000 });
    try {
      const ac = new AbortController();
      setTimeout(() => ac.abort(), 200);
      const t0 = Date.now();
      const r = await pool.run('while (true) {}', { signal: ac.signal });
      expect(Date.now() - t0).toBeLessThan(2_000);
      expect(r).toMatchObject({ limit: 'cancelled', error: 'Error: cancelled' });
      expect((await pool.run('"next"')).result).toBe('"next"');
    } finally {
      await pool.close();
    }
  });
});

// Security review "Sandbox fairness": two workers for the whole process with an unbounded queue,
// so one user's parallel run_js calls starved everyone.
describe('sandbox fairness between users (sandboxRunsPerUser, sandboxQueuePerUser)', () => {
  const userA = '22222222-2222-4222-8222-222222222222';
  const userB = '33333333-3333-4333-8333-333333333333';
  const asked: (string | null)[] = [];
  let handler: McpHttpHandler;
  let asA: Client;
  let asB: Client;
  beforeAll(async () => {
    handler = createSandboxServerHandler({
      maxWorkers: 2,
      userLimits: async (userId) => {
        asked.push(userId);
        return { sandboxRunsPerUser: 2, sandboxQueuePerUser: 2 };
      },
    });
    asA = await connectInProcess(handler, builtinAuthInfo({ userId: userA }), 'builtin://sandbox');
    asB = await connectInProcess(handler, builtinAuthInfo({ userId: userB }), 'builtin://sandbox');
  });
  afterAll(async () => {
    await asA?.close();
    await asB?.close();
    await handler?.close();
  });

  it("bounds one user's parallel runs, refuses the excess at once, and gives the next free worker to another user", async () => {
    const busy = 'const t = Date.now(); while (Date.now() - t < 400) {} "a"';
    const finished: string[] = [];
    const burst = Array.from({ length: 5 }, () =>
      call(asA, 'run_js', { code: busy }).then((r) => {
        if (!r.isError) finished.push('a');
        return r;
      }),
    );
    await new Promise((r) => setTimeout(r, 150));
    const other = call(asB, 'run_js', { code: '"b"' }).then((r) => {
      finished.push('b');
      return r;
    });
    const results = await Promise.all(burst);

    // Two running and two waiting is A's share; the fifth is refused at once, as an error result.
    const refused = results.filter((r) => r.isError);
    expect(refused).toHaveLength(1);
    expect(refused[0]!.data).toMatchObject({ result: null, durationMs: 0 });
    expect(refused[0]!.data!.error).toMatch(/^SandboxBusyError: the sandbox is busy with this user's other runs \(2 running, 2 waiting/);
    expect(refused[0]!.data!.error).toContain('Run fewer at once');
    expect(results.filter((r) => !r.isError).map((r) => r.data!.result)).toEqual(['"a"', '"a"', '"a"', '"a"']);

    // B did not queue behind A's waiting runs: it got the first worker that came free.
    expect((await other).data!.result).toBe('"b"');
    // (Whether A's second running one ends before or after B's is timing; A's two waiting ones end after it.)
    expect(finished).toHaveLength(5);
    expect(finished.slice(finished.indexOf('b') + 1).filter((x) => x === 'a').length).toBeGreaterThanOrEqual(2);
    // The user came from the host's authInfo of each call.
    expect(new Set(asked)).toEqual(new Set([userA, userB]));
  });
});
