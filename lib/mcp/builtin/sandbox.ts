import { Worker } from 'node:worker_threads';
import { createMcpHandler, McpServer, type McpHttpHandler } from '@modelcontextprotocol/server';
import { z } from 'zod';

import { logHandlerError } from './auth';
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
  /** Concurrent runs; more calls wait for a free worker. */
  maxWorkers?: number;
  /** Where the worker resolves the QuickJS packages from (default: the process cwd). */
  moduleRoot?: string;
}

export type SandboxLimit = 'time' | 'memory' | 'stack' | 'cancelled';

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

/** A few reusable workers; a worker that hit a limit or crashed is terminated, not reused. */
export class SandboxPool {
  private readonly idle: Worker[] = [];
  private readonly live = new Set<Worker>();
  private readonly waiters: Array<{ grant: (w: Worker) => void }> = [];
  readonly limits: Required<Omit<SandboxOptions, 'moduleRoot'>> & { moduleRoot: string };

  constructor(opts: SandboxOptions = {}) {
    this.limits = {
      memoryLimitBytes: opts.memoryLimitBytes ?? 32 * 1024 * 1024,
      timeLimitMs: opts.timeLimitMs ?? 2_000,
      outputLimitBytes: opts.outputLimitBytes ?? 64 * 1024,
      graceMs: opts.graceMs ?? 1_000,
      maxWorkers: opts.maxWorkers ?? 2,
      moduleRoot: opts.moduleRoot ?? process.cwd(),
    };
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
    // A slot is free: the next waiting run gets a fresh worker.
    const next = this.waiters.shift();
    if (next) next.grant(this.spawn());
  }

  private acquire(signal?: AbortSignal): Promise<Worker> {
    const ready = this.idle.pop();
    if (ready) return Promise.resolve(ready);
    if (this.live.size < this.limits.maxWorkers) return Promise.resolve(this.spawn());
    return new Promise((resolve, reject) => {
      const waiter = {
        grant: (w: Worker) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(w);
        },
      };
      const onAbort = () => {
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(new Error('cancelled while waiting for a sandbox'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  private release(worker: Worker, healthy: boolean): void {
    if (!healthy) return this.discard(worker);
    const next = this.waiters.shift();
    if (next) next.grant(worker);
    else this.idle.push(worker);
  }

  async run(code: string, signal?: AbortSignal): Promise<SandboxRun> {
    if (signal?.aborted) return { stdout: '', result: null, error: 'Error: cancelled', durationMs: 0, limit: 'cancelled' };
    let worker: Worker;
    try {
      worker = await this.acquire(signal);
    } catch {
      return { stdout: '', result: null, error: 'Error: cancelled', durationMs: 0, limit: 'cancelled' };
    }
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
        this.release(worker, healthy);
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

/** The sandbox server as a Web `Request → Response` handler; `close()` also stops its workers. */
export function createSandboxServerHandler(opts: SandboxOptions = {}): McpHttpHandler {
  const pool = new SandboxPool(opts);
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
          const { limit, ...data } = await pool.run(code, ctx.mcpReq.signal);
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
