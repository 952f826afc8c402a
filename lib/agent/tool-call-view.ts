import type { ToolCallRow } from '@/db/queries/tool-calls';

/** A tool call as clients see it (conversation JSON and events): never secrets, always the exact input. */
export interface ToolCallView {
  id: string;
  runId: string;
  toolUseId: string;
  status: string;
  server: string | null;
  serverId: string | null;
  tool: string | null;
  modelName: string;
  input: unknown;
  argsHash: string;
  trust: string | null;
  annotations: Record<string, unknown>;
  policy: { decision: string; reason: string; warnings?: string[] } | null;
  decision: Record<string, unknown> | null;
  result: Record<string, unknown> | null;
  isError: boolean;
  inputRequests: Record<string, unknown> | null;
  startedAt: string | null;
  endedAt: string | null;
}

export function toToolCallView(c: ToolCallRow): ToolCallView {
  return {
    id: c.id,
    runId: c.runId,
    toolUseId: c.toolUseId,
    status: c.status,
    server: c.serverName,
    serverId: c.serverId,
    tool: c.tool,
    modelName: c.modelName,
    input: c.input,
    argsHash: c.argsHash,
    trust: c.trust,
    annotations: c.annotations ?? {},
    policy: (c.policy as ToolCallView['policy']) ?? null,
    decision: c.decision ?? null,
    result: c.result ?? null,
    isError: c.isError === true,
    inputRequests: c.inputRequests ?? null,
    startedAt: c.startedAt?.toISOString() ?? null,
    endedAt: c.endedAt?.toISOString() ?? null,
  };
}
