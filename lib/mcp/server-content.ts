import type { Client } from '@modelcontextprotocol/client';

import { formatBytes, type ResponseTooLarge } from './bounded-fetch';
import { closeQuietly, connect, type ConnectDeps } from './connection';
import { describeFailure, isTimeout, redactForServer, signInRequiredIn, type NeedsSignIn } from './failures';
import type { CallerIdentity, McpServerConfig } from './types';

/**
 * One short-lived connection for reading what a server offers besides tools (its prompts and
 * resources), on the same path as a tool call: the URL guard, OAuth and the response bound come
 * with `ConnectDeps`. Nothing here throws: a failure is a sentence naming the server, and a
 * server that needs the person to sign in says so as data.
 */

/** Reading a prompt or a resource waits at most this long, whatever the server's call timeout. */
export const CONTENT_TIMEOUT_MS = 20_000;

export type Fetched<T> = { ok: true; value: T } | { ok: false; message: string; needsSignIn?: NeedsSignIn };

export async function withServer<T>(
  deps: ConnectDeps,
  server: McpServerConfig,
  caller: CallerIdentity,
  action: string,
  read: (client: Client, request: { timeout: number; signal: AbortSignal }) => Promise<T>,
): Promise<Fetched<T>> {
  const timeout = Math.min(server.timeoutMs, CONTENT_TIMEOUT_MS);
  const overall = new AbortController();
  const timer = setTimeout(() => overall.abort(), timeout);
  let tooLarge: ResponseTooLarge | undefined;
  const onResponseTooLarge = (error: ResponseTooLarge) => {
    tooLarge ??= error;
    overall.abort(error);
  };
  let client: Client | undefined;
  try {
    client = await connect(server, caller, { ...deps, timeoutMs: timeout, signal: overall.signal, onResponseTooLarge });
    return { ok: true, value: await read(client, { timeout, signal: overall.signal }) };
  } catch (error) {
    const needsSignIn = signInRequiredIn(error);
    if (needsSignIn) return { ok: false, message: `${server.displayName} needs you to sign in before it can ${action}.`, needsSignIn };
    if (tooLarge) {
      return {
        ok: false,
        message:
          `${server.displayName}'s answer was too large: it went over ${formatBytes(tooLarge.limitBytes)}, ` +
          'so Switchboard stopped reading it.',
      };
    }
    if (overall.signal.aborted || isTimeout(error)) {
      return { ok: false, message: `${server.displayName} did not answer within ${timeout / 1000} s when asked to ${action}.` };
    }
    return { ok: false, message: redactForServer(server, describeFailure(server.displayName, server.url, action, error)) };
  } finally {
    clearTimeout(timer);
    if (client) await closeQuietly(client);
  }
}

/** A server's text for a label: a string, trimmed and cut, or undefined. */
export function shortText(value: unknown, max = 500): string | undefined {
  if (typeof value !== 'string') return undefined;
  const flat = value.trim();
  if (!flat) return undefined;
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
