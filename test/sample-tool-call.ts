import { toolCallViewSchema } from '@/lib/agent/event-payloads';
import type { ToolCallView } from '@/lib/agent/tool-call-view';

/** A valid tool-call view for tests (parsed through its schema, so defaults stay the schema's), with the fields a test cares about. */
export function sampleToolCallView(over: Partial<ToolCallView> = {}): ToolCallView {
  return toolCallViewSchema.parse({
    id: 'call-1',
    runId: 'run-1',
    toolUseId: 'tu_1',
    status: 'executing',
    server: 'Docs',
    tool: 'write',
    modelName: 'docs__write',
    input: {},
    argsHash: 'h',
    trust: 'trusted',
    startedAt: null,
    endedAt: null,
    hints: { annotated: false, readOnly: false, destructive: false, openWorld: false },
    verdict: null,
    decision: null,
    result: null,
    inputRequests: null,
    inputRound: null,
    ...over,
  });
}
