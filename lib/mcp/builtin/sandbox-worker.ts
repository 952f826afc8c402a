/**
 * The sandbox worker's source, run with `new Worker(SANDBOX_WORKER_SOURCE, { eval: true })`. It is
 * a string on purpose: a separate worker file would need one path under vitest (TS source) and
 * another after `next build` bundling. The QuickJS packages are required by name from the
 * project root (`workerData.root`), so both setups resolve the same node_modules copy.
 *
 * Protocol: the host posts one job at a time `{ code, memoryLimitBytes, timeLimitMs,
 * outputLimitBytes }`; the worker answers `{ stdout, result, error, limit, tainted }`, each of
 * `stdout`, `result` and `error` cut to `outputLimitBytes` here, before anything crosses to the host.
 * `tainted` means QuickJS could not free the runtime cleanly: the host must replace the worker.
 */
export const SANDBOX_WORKER_SOURCE = String.raw`
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const { createRequire } = require('node:module');
const load = createRequire(workerData.root + '/');
const core = load('quickjs-emscripten-core');
const variant = load('@jitl/quickjs-wasmfile-release-sync');
// Loaded once per worker; each job gets a fresh runtime and context (~0.2 ms).
const modulePromise = core.newQuickJSWASMModuleFromVariant(variant.default || variant);

// Runs first in every context: console.* writes through a host function that the script
// cannot reach afterwards (the global is deleted, the closure keeps it).
const PRELUDE = '(() => {' +
  'const write = globalThis.__sbWrite; delete globalThis.__sbWrite;' +
  'const fmt = (v) => {' +
  '  if (typeof v === "string") return v;' +
  '  if (v instanceof Error) return v.name + ": " + v.message;' +
  '  if (typeof v === "function") return "[Function" + (v.name ? ": " + v.name : "") + "]";' +
  '  if (v === undefined || typeof v === "bigint" || typeof v === "symbol") return String(v);' +
  '  try { const j = JSON.stringify(v); return j === undefined ? String(v) : j; } catch (e) { return String(v); }' +
  '};' +
  'const log = (...a) => { write(a.map(fmt).join(" ")); };' +
  'globalThis.console = Object.freeze({ log, info: log, warn: log, error: log, debug: log });' +
  '})();';
// JSON of the final value, or String() when it is not JSON-able; undefined means "no value".
const STRINGIFY = '(v) => { if (v === undefined) return null;' +
  'try { const j = JSON.stringify(v); if (j !== undefined) return j; } catch (e) {}' +
  'try { return String(v); } catch (e) { return "[unprintable " + typeof v + "]"; } }';

// Cuts text to \`cap\` UTF-8 bytes with a marker saying what was cut. Slicing by characters first
// keeps a 16 MB string from being copied whole into a Buffer just to be thrown away.
function capBytes(text, cap, what) {
  if (text.length <= cap / 3 || Buffer.byteLength(text) <= cap) return text;
  // A split multi-byte character at the cut is dropped.
  const kept = Buffer.from(text.slice(0, cap)).subarray(0, cap).toString('utf8').replace(/\uFFFD$/, '');
  return kept + '\n[' + what + ' truncated at ' + cap + ' bytes]';
}

// The thrown value in words. Every part is cut to the output cap before it is joined: a script
// can throw a 16 MB string or an error with a 16 MB message, and none of that may reach the host.
function describeError(dumped, cap) {
  const cut = (s) => String(s).slice(0, cap + 1);
  if (dumped && typeof dumped === 'object' && 'message' in dumped) {
    const stack = typeof dumped.stack === 'string' ? cut(dumped.stack).split('\n').slice(0, 5).join('\n').trimEnd() : '';
    return capBytes(cut(dumped.name || 'Error') + ': ' + cut(dumped.message) + (stack ? '\n' + stack : ''), cap, 'error');
  }
  let text;
  try { text = JSON.stringify(typeof dumped === 'string' ? cut(dumped) : dumped); } catch (e) { text = undefined; }
  return capBytes('Uncaught ' + cut(text === undefined ? String(dumped) : text), cap, 'error');
}

function limitOf(message) {
  if (/^InternalError: interrupted/.test(message)) return 'time';
  if (/^InternalError: out of memory/.test(message)) return 'memory';
  if (/^(InternalError|RangeError): (stack overflow|Maximum call stack)/.test(message)) return 'stack';
  return null;
}

const LIMIT_TEXT = {
  time: (job) => 'TimeLimitError: the script was stopped after ' + job.timeLimitMs + ' ms (CPU time limit)',
  memory: (job) => 'MemoryLimitError: the script ran out of memory (limit ' + Math.round(job.memoryLimitBytes / 1048576) + ' MB)',
  stack: () => 'InternalError: stack overflow (recursion deeper than the sandbox allows)',
};

function run(mod, job) {
  const cap = job.outputLimitBytes;
  let stdout = '';
  let bytes = 0;
  let truncated = false;
  const write = (line) => {
    if (truncated) return;
    const chunk = line + '\n';
    const size = Buffer.byteLength(chunk);
    if (bytes + size <= cap) { stdout += chunk; bytes += size; return; }
    // Cut on a byte budget; a split multi-byte character at the cut is dropped.
    stdout += Buffer.from(chunk).subarray(0, cap - bytes).toString('utf8').replace(/\uFFFD$/, '');
    truncated = true;
  };
  const rt = mod.newRuntime();
  rt.setMemoryLimit(job.memoryLimitBytes);
  rt.setMaxStackSize(256 * 1024);
  const deadline = Date.now() + job.timeLimitMs;
  rt.setInterruptHandler(() => Date.now() > deadline);
  const vm = rt.newContext();
  let result = null;
  let error = null;
  const handles = [];
  try {
    const writeFn = vm.newFunction('__sbWrite', (h) => { write(vm.getString(h)); });
    vm.setProp(vm.global, '__sbWrite', writeFn);
    writeFn.dispose();
    vm.unwrapResult(vm.evalCode(PRELUDE, 'prelude.js')).dispose();
    const stringify = vm.unwrapResult(vm.evalCode(STRINGIFY, 'stringify.js'));
    handles.push(stringify);
    const evaluated = vm.evalCode(job.code, 'sandbox.js');
    if (evaluated.error) {
      handles.push(evaluated.error);
      error = describeError(vm.dump(evaluated.error), cap);
    } else {
      let value = evaluated.value;
      handles.push(value);
      // Promise callbacks are microtasks: run them all (there are no timers to wait for).
      const jobs = rt.executePendingJobs();
      if (jobs.error) { handles.push(jobs.error); error = describeError(vm.dump(jobs.error), cap); }
      const state = vm.getPromiseState(value);
      if (state.type === 'pending') {
        error = 'Error: the final value is a promise that never settled (the sandbox has no timers or I/O to wait for)';
      } else if (state.type === 'rejected') {
        handles.push(state.error);
        error = describeError(vm.dump(state.error), cap);
      } else if (!state.notAPromise) {
        handles.push(state.value);
        value = state.value;
      }
      if (error === null) {
        const text = vm.callFunction(stringify, vm.undefined, value);
        if (text.error) { handles.push(text.error); error = describeError(vm.dump(text.error), cap); }
        else { handles.push(text.value); result = vm.dump(text.value); }
      }
    }
  } catch (e) {
    error = 'Error: ' + String(e && e.message ? e.message : e).slice(0, cap + 1);
  }
  let tainted = false;
  try {
    for (const h of handles) if (h.alive) h.dispose();
    vm.dispose();
    rt.dispose();
  } catch (e) {
    tainted = true;
  }
  if (typeof result === 'string') result = capBytes(result, cap, 'result');
  if (truncated) stdout += '\n[output truncated at ' + cap + ' bytes]';
  const limit = error ? limitOf(error) : null;
  if (limit) {
    // QuickJS says "interrupted" / "out of memory"; say which limit it was, keep the location.
    const nl = error.indexOf('\n');
    error = LIMIT_TEXT[limit](job) + (nl >= 0 ? error.slice(nl) : '');
  }
  // Failures of the sandbox itself carry text too (an engine message); the same cap holds.
  if (error !== null) error = capBytes(error, cap, 'error');
  return { stdout, result, error, limit, tainted: tainted || limit !== null };
}

parentPort.on('message', async (job) => {
  let reply;
  try {
    reply = run(await modulePromise, job);
  } catch (e) {
    const why = String(e && e.message ? e.message : e).slice(0, 2000);
    reply = { stdout: '', result: null, error: 'Error: sandbox failure: ' + why, limit: null, tainted: true };
  }
  parentPort.postMessage(reply);
});
`;
