// A tool card's "Switch on" and where it lands in the Tools panel, without React
// (switch-on.test.ts covers it).

import type { ToolCallView } from '@/app/_components/types';
import { NOT_SWITCHED_ON } from '@/lib/consent/grant-source';

import type { ServerEntry, ToolEntry } from './tools-view';

/**
 * The card of a call refused because its tool is not switched on in this conversation offers to
 * switch it on (in the panel, through its usual switch: the card itself grants nothing). Other
 * refusals — suspended, over the plan, a policy — are not fixed by a switch, so they offer nothing.
 */
export function offersSwitchOn(call: Pick<ToolCallView, 'status' | 'verdict' | 'decision'>): boolean {
  return call.status === 'rejected' && !call.decision && call.verdict?.reason === NOT_SWITCHED_ON;
}

/**
 * Whether a tool of the panel is the one the model called by `modelName`: the name it was offered
 * under, or — for a tool that is off, and so was offered under no name — `<namespace>__<tool>`.
 */
export function isToolCalled(
  server: Pick<ServerEntry, 'namespace'>,
  tool: Pick<ToolEntry, 'name' | 'modelName'>,
  modelName: string,
): boolean {
  return tool.modelName === modelName || `${server.namespace}__${tool.name}` === modelName;
}
