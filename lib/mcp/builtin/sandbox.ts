import { Worker } from 'node:worker_threads';
import { createMcpHandler, McpServer, type McpHttpHandler } from '@modelcontextprotocol/server';
import { z } from 'zod';

import { limitsFor, type Limits } from '@/lib/limits';

import { callerFromAuthInfo, logHandlerError } from './auth';
import { FairSlots, SandboxBusy, type SlotOwner } from './sandbox-slots';
import { SANDBOX_WORKER_SOURCE } from './sandbox-worker';
import { toolInput } from './tool-schema';

/**
 * The first-party `sandbox` server: one tool, `run_js`, that evaluates JavaScript in QuickJS
 * (WASM) inside a worker thread. Two independent stops: QuickJS's interrupt handler ends busy
 * code at the time limit, and the host terminates the whole worker at limit + grace, because
 * allocation-heavy code can keep QuickJS from checking the interrupt for seconds.
 */

export interface SandboxOptions {
  memoryLimitBytes?: number;
  timeLimitMs?: number;
  outputLimitBytes?: number;
  /** Extra time after the limit before the worker is terminated. */
  graceMs?: number;
  /** Concurrent runs, over all users; more calls wait for a free worker. */
  maxWorkers?: number;
  /** Runs waiting for a worker, over all users; past it a run is refused at once (default 32). */
  maxWaiting?: number;
  /** Where the worker resolves the QuickJS packages from (default: the process cwd). */
  moduleRoot?: string;
}

export type SandboxLimit = 'time' | 'memory' | 'stack' | 'cancelled' | 'busy';

/** Whose run it is, with that person's share of the sandbox (from `sandboxRunsPerUser` / `sandboxQueuePerUser`). */
export interface SandboxUser {
  id: string;
  maxRunning: number;
  maxWaiting: number;
}

export interface SandboxRunOptions {
  signal?: AbortSignal;
  /** Without one, only the overall bounds apply (the server always passes one). */
  user?: SandboxUser;
}

export interface SandboxRun {
  stdout: string;
  result: string | null;
  error: string | null;
  durationMs: number;
  /** Which limit stopped the run, if any (not sent to the model: `error` says it). */
  limit: SandboxLimit | null;
}

const CODE_MAX = 50_000;

type Reply = Omit<SandboxRun, 'durationMs'> & { tainted?: boolean };

/**
 * A few reusable workers; a worker that hit a limit or crashed is terminated, not reused. Who
 * gets a worker, and who is turned away, is decided by `FairSlots` (one slot per worker).
 */
export class SandboxPool {
  private readonly idle: Worker[] = [];
  private readonly live = new Set<Worker>();
  private readonly slots: FairSlots;
  readonly limits: Required<Omit<SandboxOptions, 'moduleRoot'>> & { moduleRoot: string };

  constructor(opts: SandboxOptions = {}) {
    this.limits = {
      memoryLimitBytes: opts.memoryLimitBytes ?? 32 * 1024 * 1024,
      timeLimitMs: opts.timeLimitMs ?? 2_000,
      outputLimitBytes: opts.outputLimitBytes ?? 64 * 1024,
      graceMs: opts.graceMs ?? 1_000,
      maxWorkers: opts.maxWorkers ?? 2,
      maxWaiting: opts.maxWaiting ?? 32,
      moduleRoot: opts.moduleRoot ?? process.cwd(),
    };
    this.slots = new FairSlots(this.limits.maxWorkers, this.limits.maxWaiting);
  }

  private spawn(): Worker {
    const worker = new Worker(SANDBOX_WORKER_SOURCE, {
      eval: true,
      workerData: { root: this.limits.moduleRoot },
      // QuickJS's heap lives in WASM memory; this bounds the worker's own JS (captured output).
      resourceLimits: { maxOldGenerationSizeMb: 128 },
      // QuickJS prints its abort diagnostics itself; they are noise in the host's logs.
      stdout: true,
      stderr: true,
    });
    worker.stdout.resume();
    worker.stderr.resume();
    // An idle worker must not keep the process alive; a running job holds a timer instead.
    worker.unref();
    worker.once('exit', () => this.discard(worker));
    this.live.add(worker);
    return worker;
  }

  private discard(worker: Worker): void {
    if (!this.live.delete(worker)) return;
    const i = this.idle.indexOf(worker);
    if (i >= 0) this.idle.splice(i, 1);
    void worker.terminate();
  }

  /** Holding a slot guarantees a worker: busy workers never outnumber the other slot holders. */
  private takeWorker(): Worker {
    return this.idle.pop() ?? this.spawn();
  }

  private putBack(worker: Worker, healthy: boolean): void {
    if (healthy && this.live.has(worker)) this.idle.push(worker);
    else this.discard(worker);
  }

  async run(code: string, opts: SandboxRunOptions = {}): Promise<SandboxRun> {
    const { signal, user } = opts;
    const cancelled: SandboxRun = { stdout: '', result: null, error: 'Error: cancelled', durationMs: 0, limit: 'cancelled' };
    if (signal?.aborted) return cancelled;
    const owner: SlotOwner = user
      ? { key: user.id, maxRunning: user.maxRunning, maxWaiting: user.maxWaiting }
      : { key: '', maxRunning: Infinity, maxWaiting: Infinity };
    let freeSlot: () => void;
    try {
      freeSlot = await this.slots.acquire(owner, signal);
    } catch (err) {
      if (err instanceof SandboxBusy) return { stdout: '', result: null, error: err.message, durationMs: 0, limit: 'busy' };
      return cancelled;
    }
    const worker = this.takeWorker();
    const { memoryLimitBytes, timeLimitMs, outputLimitBytes, graceMs } = this.limits;
    const started = performance.now();
    return new Promise<SandboxRun>((resolve) => {
      let settled = false;
      const finish = (reply: Reply, healthy: boolean) => {
        if (settled) return;
        settled = true;
        clearTimeout(hardStop);
        signal?.removeEventListener('abort', onAbort);
        worker.off('message', onMessage).off('error', onCrash).off('exit', onCrash);
        // The worker first, then the slot: whoever gets the slot next finds a worker.
        this.putBack(worker, healthy);
        freeSlot();
        resolve({
          stdout: reply.stdout,
          result: reply.result,
          error: reply.error,
          limit: reply.limit,
          durationMs: Math.round(performance.now() - started),
        });
      };
      const onMessage = (reply: Reply) => finish(reply, !reply.tainted);
      const onCrash = (err?: unknown) =>
        finish(
          {
            stdout: '',
            result: null,
            error: `Error: the sandbox crashed (${err instanceof Error ? err.message : 'worker exited'})`,
            limit: null,
          },
          false,
        );
      const onAbort = () => finish({ stdout: '', result: null, error: 'Error: cancelled', limit: 'cancelled' }, false);
      const hardStop = setTimeout(
        () =>
          finish(
            {
              stdout: '',
              result: null,
              error:
                `TimeLimitError: the script was stopped after ${timeLimitMs} ms (time limit; it had to be terminated, so its ` +
                `output is lost)`,
              limit: 'time',
            },
            false,
          ),
        timeLimitMs + graceMs,
      );
      worker.on('message', onMessage).on('error', onCrash).on('exit', onCrash);
      signal?.addEventListener('abort', onAbort, { once: true });
      worker.postMessage({ code, memoryLimitBytes, timeLimitMs, outputLimitBytes });
    });
  }

  async close(): Promise<void> {
    this.slots.cancelAll();
    const all = [...this.live];
    this.live.clear();
    this.idle.length = 0;
    await Promise.all(all.map((w) => w.terminate()));
  }
}

const runJsInput = z.strictObject({
  code: z
    .string()
    .min(1)
    .max(CODE_MAX)
    .describe('JavaScript source (script, not a module). The value of the last expression is the result.'),
});
const runJsOutput = z.strictObject({
  stdout: z.string().describe('Everything console.log/info/warn/error printed, one line per call.'),
  result: z
    .string()
    .nullable()
    .describe('JSON of the final expression value, String() of it when not JSON-able, null when undefined or on error.'),
  error: z.string().nullable().describe('The uncaught error or the limit that stopped the script; null on success.'),
  durationMs: z.number().describe('Wall time of the run in milliseconds.'),
});

function describeRunJs(p: SandboxPool): string {
  const { timeLimitMs, memoryLimitBytes, outputLimitBytes } = p.limits;
  return (
    'Run a JavaScript snippet in an isolated QuickJS sandbox and get its console output and final value. ' +
    'Use it for exact arithmetic, data transformation, parsing, sorting or checking an algorithm. ' +
    'Do not use it for anything outside the sandbox: there is no network (fetch), no files, no require/import, no process, no timers ' +
    'and no DOM; each call starts fresh with no state from earlier calls. ' +
    `Limits: ${timeLimitMs} ms CPU, ${Math.round(memoryLimitBytes / 1024 / 1024)} MB memory, ${Math.round(outputLimitBytes / 1024)} KB ` +
    `output (cut with a marker). ` +
    'The result is the value of the last expression (as in a REPL); to use await, end with an async IIFE whose promise is the last ' +
    'expression. ' +
    'No side effects. Returns { stdout, result, error, durationMs }: a thrown error sets error; a run stopped by a limit is also marked ' +
    'as failed.'
  );
}

export type SandboxUserLimits = Pick<Limits, 'sandboxRunsPerUser' | 'sandboxQueuePerUser'>;

export interface SandboxServerOptions extends SandboxOptions {
  /** The caller's sandbox limits (their plan's); default: `limitsFor` with no plan. */
  userLimits?: (userId: string | null) => Promise<SandboxUserLimits>;
}

/** The sandbox server as a Web `Request → Response` handler; `close()` also stops its workers. */
export function createSandboxServerHandler(opts: SandboxServerOptions = {}): McpHttpHandler {
  const pool = new SandboxPool(opts);
  const userLimits = opts.userLimits ?? (async () => limitsFor(undefined));
  const handler = createMcpHandler(
    () => {
      const server = new McpServer({ name: 'switchboard-sandbox', version: '1.0.0' });
      server.registerTool(
        'run_js',
        {
          title: 'Run JavaScript',
          description: describeRunJs(pool),
          inputSchema: toolInput(runJsInput),
          outputSchema: runJsOutput,
          annotations: { title: 'Run JavaScript', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
        },
        async ({ code }, ctx) => {
          // The person comes from the host's trusted authInfo, never from arguments. Calls without
          // one (a remote mount of this handler) all count as one anonymous person.
          const userId = callerFromAuthInfo(ctx.http?.authInfo)?.userId ?? null;
          const limits = await userLimits(userId);
          const user = { id: userId ?? 'anonymous', maxRunning: limits.sandboxRunsPerUser, maxWaiting: limits.sandboxQueuePerUser };
          const { limit, ...data } = await pool.run(code, { signal: ctx.mcpReq.signal, user });
          return {
            content: [{ type: 'text', text: JSON.stringify(data) }],
            structuredContent: data,
            // A limit means the script did not finish: the model must not read it as a result.
            ...(limit ? { isError: true } : {}),
          };
        },
      );
      return server;
    },
    { onerror: logHandlerError('sandbox') },
  );
  return {
    ...handler,
    close: async () => {
      await handler.close();
      await pool.close();
    },
  };
}
