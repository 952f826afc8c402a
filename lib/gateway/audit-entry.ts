import { createHash, randomUUID } from 'node:crypto';
import canonicalize from 'canonicalize';

import type { StoredAuditClientCall } from '@/db/stored-json';
import type { AuditOutcome, AuditVerdict } from '@/db/vocabulary';
import type { AuditAppend } from '@/lib/audit/append';

import type { ExposableTool } from './catalog';
import type { GatewayPrincipal } from './principal';

/**
 * The audit entry of one call an MCP client made through /mcp: who (the person and the client by
 * its token's name), which tool, the exact arguments and their hash, the verdict and its rule,
 * how it ended and a digest of what went back. One entry per call, written when it ends.
 */
export function clientCallEntry(
  principal: GatewayPrincipal,
  exposed: ExposableTool,
  call: {
    input: unknown;
    argsHash: string;
    verdict: { kind: AuditVerdict; rule: string | null; warnings: string[] };
    outcome: AuditOutcome;
    startedAt: Date | null;
    endedAt: Date;
    result: unknown;
  },
): AuditAppend & { content: StoredAuditClientCall } {
  const { tool, server } = exposed;
  const content: StoredAuditClientCall = {
    v: 1,
    kind: 'client_call',
    callId: randomUUID(),
    client: principal.client,
    server: { id: server.id, name: server.displayName },
    tool: tool.name,
    name: exposed.name,
    trust: tool.trust,
    arguments: { value: call.input, hash: call.argsHash },
    verdict: call.verdict,
    outcome: call.outcome,
    timing: {
      startedAt: call.startedAt?.toISOString() ?? null,
      endedAt: call.endedAt.toISOString(),
      durationMs: call.startedAt ? call.endedAt.getTime() - call.startedAt.getTime() : null,
    },
    result: call.result === undefined ? null : resultDigest(call.result),
  };
  return { userId: principal.userId, content };
}

/** What went back to the client, for its audit entry: its size and SHA-256 over its RFC 8785 encoding. */
export function resultDigest(result: unknown): NonNullable<StoredAuditClientCall['result']> {
  const bytes = Buffer.from(canonicalize(result) ?? 'null', 'utf8');
  const isError = (result as { isError?: unknown } | null)?.isError === true;
  return { isError, bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
}
