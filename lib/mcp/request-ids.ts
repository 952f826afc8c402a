import { randomInt } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/client';

/**
 * Each use makes a fresh client, whose JSON-RPC ids would all start at 0; a call resumed after
 * `input_required` would then repeat the first attempt's id, which the 2026-07-28 protocol
 * forbids (a retry is a new request). The SDK has no option for the first id, so this moves its
 * counter — the one place that touches the SDK's private state. What it relies on (ids come from
 * `Client#_requestMessageId`, one per request, and connecting does not reset it) is checked on
 * the wire by `request-ids.test.ts`, which fails if an SDK update changes it; the field missing
 * leaves the SDK's own ids (the same test fails then too).
 */
export function startRequestIdsAtRandom(client: Client): void {
  const counter = client as unknown as { _requestMessageId?: unknown };
  if (typeof counter._requestMessageId === 'number') counter._requestMessageId = randomInt(1, 2 ** 31);
}
