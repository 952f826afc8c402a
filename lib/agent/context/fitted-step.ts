import type Anthropic from '@anthropic-ai/sdk';

import type { RunRow } from '@/db/queries/runs';

import { DEFAULT_SYSTEM_PROMPT, type EngineDeps } from '../deps';
import { modelRequest, streamModelStep, type StepOutcome } from '../model-step';
import { HOST_SERVER, READ_RESULT_TOOL } from '../read-result-tool';
import { outputRequest } from '../run-model';
import { stepSystem, type StepInstructions } from '../step-system';
import { estimateRequestTokens } from '../token-estimate';
import { withHostTool, type ToolOffer } from '../tool-host';
import type { DriveHistory } from './drive-history';
import { countInputTokens, fitHistory, type FittedHistory, type StepFrame } from './fit';
import { promptTooLong } from './prompt-too-long';
import { stepRoom, withMaximum } from './room';
import { DEFAULT_CONTEXT_SETTINGS } from './settings';

/**
 * One model step whose history fits the model's window (./fit.ts). A "prompt is too long"
 * answer is not the end of the conversation: the estimate is corrected by the size the API
 * named, the history shortened further, and the step tried once more. Every answer the API
 * counted calibrates the next estimate. Returns the offer as sent: once results are stubbed, it
 * includes the paging tool that reads them again.
 */
export async function streamFittedStep(
  deps: EngineDeps,
  run: RunRow,
  drive: DriveHistory,
  offer: ToolOffer,
  target: { conversationId: string; runId: string; messageId: string },
  signal: AbortSignal,
  instructions: StepInstructions | null = null,
): Promise<{ outcome: StepOutcome; offer: ToolOffer }> {
  const system = stepSystem(deps.systemPrompt ?? DEFAULT_SYSTEM_PROMPT, instructions);
  // The request's own max_tokens (what it asks for, within the model's limit) counts against the window.
  const maxTokens = outputRequest(deps.model, run.thinking).max_tokens;
  const settings = deps.context ?? DEFAULT_CONTEXT_SETTINGS;
  let room = stepRoom(deps.model.model, maxTokens, settings, deps.model.limits ?? null);
  if (drive.windowSaid) room = withMaximum(room, drive.windowSaid, settings);
  const gauge = drive.gauge(deps.model.model);
  const frame: StepFrame = {
    gauge,
    fixedRaw: estimateRequestTokens({ system, tools: offer.tools, messages: [] }),
    count: (messages) =>
      countInputTokens(deps.model.client, modelRequest(deps, { messages, tools: offer.tools, thinking: run.thinking, instructions })),
  };
  const attempt = async (fitted: FittedHistory) => {
    const offered = fitted.stubbed && deps.tools ? withHostTool(offer, READ_RESULT_TOOL, HOST_SERVER) : offer;
    const request = { messages: fitted.messages, tools: offered.tools, thinking: run.thinking, instructions };
    const outcome = await streamModelStep(deps, target, request, signal);
    return { outcome, offer: offered, raw: estimateRequestTokens({ system, messages: request.messages, tools: request.tools }) };
  };

  let sent = await attempt(await fitHistory(deps, run, drive, room, frame, signal));
  const tooLong = sent.outcome.kind === 'error' ? promptTooLong(sent.outcome.error) : null;
  if (tooLong && !signal.aborted) {
    gauge.calibrate(sent.raw, tooLong.tokens);
    // The API named the real window: believe it over any table, for the rest of the drive.
    drive.windowSaid = tooLong.maximum;
    room = withMaximum(room, tooLong.maximum, settings);
    sent = await attempt(await fitHistory(deps, run, drive, room, frame, signal, { force: true }));
  }
  if (sent.outcome.kind === 'message') gauge.calibrate(sent.raw, inputTokensOf(sent.outcome.usage));
  return { outcome: sent.outcome, offer: sent.offer };
}

/** Every input token of a request: the uncached part, and what the prompt cache wrote and read. */
export function inputTokensOf(usage: Anthropic.Usage): number {
  return (usage.input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0);
}
