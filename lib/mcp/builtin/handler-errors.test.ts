import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';

import { logHandlerError } from './auth';
import { createNotesServerHandler, createSandboxServerHandler } from './index';

/**
 * Security review: the `onerror` handlers of the built-in servers logged raw error messages,
 * which can quote what they were about (a query's parameters, say). Only a summary is logged.
 */
describe('built-in handler errors are logged through errorSummary', () => {
  const notes = createNotesServerHandler(async () => {
    throw new Error('not used');
  });
  const sandbox = createSandboxServerHandler();
  afterAll(async () => {
    await notes.close();
    await sandbox.close();
  });
  afterEach(() => vi.restoreAllMocks());

  it('logs a summary without the parameters an error quotes', () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    const leaky = new Error('Failed query: select * from notes where user_id = $1\nparams: secret-note-text,ada@example.test');
    logHandlerError('notes')(leaky);
    expect(log).toHaveBeenCalledWith('[notes] MCP handler error:', 'Error: Failed query: select * from notes where user_id = $1');
    expect(JSON.stringify(log.mock.calls)).not.toMatch(/secret-note-text|ada@example/);
  });

  it.each([
    ['notes', notes],
    ['sandbox', sandbox],
  ])('the %s server reports a refused request through the summary', async (name, handler) => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    const refused = await handler.fetch(
      new Request(`http://127.0.0.1/${name}`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hello' }),
    );
    expect(refused.status).toBe(415);
    const logged = log.mock.calls.find((c) => c[0] === `[${name}] MCP handler error:`);
    // errorSummary's shape: the error's name first, then the message.
    expect(logged?.[1]).toMatch(/^Error: Unsupported Media Type/);
  });
});
