import type Anthropic from '@anthropic-ai/sdk';

import type { StoredHistory } from '@/db/queries/history-summaries';

import type { EngineDeps } from '../deps';
import { toMessageParams, type StoredMessage } from '../history';
import { estimateMessageTokens } from '../token-estimate';
import type { DriveHistory } from './drive-history';
import type { DriveFiles } from './file-blocks';
import type { TokenGauge } from './gauge';
import type { StepRoom } from './room';
import { STUB_MIN_TOKENS, stubChunks, withStubs } from './stubs';
import { summaryCuts, summaryMessage, summaryTokens, writeSummary } from './summarize';

/**
 * Where the estimate stands against the room's limit (shares of `limit`). Below `near` the
 * request goes as it is, with no round trip; between `near` and `far` the API counts it exactly
 * (`messages.countTokens`); past the limit the history is shortened to well below it, so the next
 * steps do not come back at once: stubs until `stubs`, then a summary until `summary`. After a
 * "prompt is too long" the estimate is known to be wrong, and the targets are lower.
 */
const SHARE = {
  near: 0.9,
  far: 1.1,
  normal: { stubs: 0.75, summary: 0.5 },
  forced: { stubs: 0.6, summary: 0.4 },
} as const;

export interface StepFrame {
  /** The estimate's calibration for the step's model (./gauge.ts). */
  gauge: TokenGauge;
  /** The raw estimate of what the request carries besides its messages (system prompt, tools). */
  fixedRaw: number;
  /** The API's exact count of the request with these messages; null when it could not say. */
  count(messages: Anthropic.MessageParam[]): Promise<number | null>;
}

export interface FittedHistory {
  messages: Anthropic.MessageParam[];
  /** The raw estimate of the whole request (calibrate against what the API then reports). */
  raw: number;
  /** The calibrated estimate, or the API's count when it was asked. */
  tokens: number;
  counted: boolean;
  /** Results sent as stubs in this request; the paging tool must then be offered. */
  stubbed: number;
  summarized: boolean;
}

/**
 * The history to send with a step, within the room of the model's window: as stored when it
 * fits; else older tool results as stubs; else the oldest turns summarized too (./summarize.ts).
 * It stays a valid Messages API history: stubs keep their `tool_use_id`, a summary ends before a
 * turn the person started, and the current turn is never summarized. `force`: the API said the
 * last request was too long — shorten whatever the estimate says.
 */
export async function fitHistory(
  deps: EngineDeps,
  run: { id: string; conversationId: string; userId: string },
  drive: DriveHistory,
  room: StepRoom,
  frame: StepFrame,
  signal: AbortSignal,
  opts: { force?: boolean } = {},
): Promise<FittedHistory> {
  let stored = await drive.load(deps.db, run.conversationId);
  await drive.files.resolve(deps.files, run.userId, stored.messages);
  const sendable = (s: StoredHistory, stubbed: ReadonlySet<string>) => sendableOf(s, stubbed, drive.files);
  let summarized = false;
  let messages = sendable(stored, drive.stubbed);
  let raw = rawOf(frame, messages);
  const estimate = () => frame.gauge.estimate(raw);
  const fitted = (tokens = estimate(), counted = false): FittedHistory => ({
    messages,
    raw,
    tokens,
    counted,
    stubbed: countStubbed(stored, drive.stubbed),
    summarized,
  });

  if (!opts.force) {
    if (estimate() <= room.limit * SHARE.near) return fitted();
    if (estimate() <= room.limit * SHARE.far) {
      const counted = await frame.count(messages);
      if (counted !== null) {
        frame.gauge.calibrate(raw, counted);
        if (counted <= room.limit) return fitted(counted, true);
      }
    }
  }
  const target = opts.force ? SHARE.forced : SHARE.normal;
  const stubTo = (share: number) => {
    for (const chunk of stubChunks(stored.messages, chunkTokens(room))) {
      if (estimate() <= room.limit * share) return;
      if (chunk.every((id) => drive.stubbed.has(id))) continue;
      for (const id of chunk) drive.stubbed.add(id);
      messages = sendable(stored, drive.stubbed);
      raw = rawOf(frame, messages);
    }
  };

  stubTo(target.stubs);
  if (estimate() > room.limit * target.stubs) {
    const cut = chooseCut(stored, drive, frame, room, run.id, target.summary);
    const summary =
      cut === null ? null : await writeSummary(deps, run, stored.summary?.text ?? null, stored.messages.slice(0, cut), room, signal);
    if (summary) {
      stored = drive.summarized(summary);
      summarized = true;
      messages = sendable(stored, drive.stubbed);
      raw = rawOf(frame, messages);
      stubTo(target.stubs); // the current turn alone may still be long
    }
  }
  return fitted();
}

/** The earliest cut that brings the estimate to `share` of the limit, else the latest there is. */
function chooseCut(
  stored: StoredHistory,
  drive: DriveHistory,
  frame: StepFrame,
  room: StepRoom,
  runId: string,
  share: number,
): number | null {
  const cuts = summaryCuts(stored.messages, runId);
  if (!cuts.length) return null;
  const stubbed = withStubs(stored.messages, drive.stubbed);
  const after = new Array<number>(stubbed.length + 1).fill(0);
  for (let i = stubbed.length - 1; i >= 0; i--) after[i] = after[i + 1]! + storedTokens(stubbed[i]!);
  const head = frame.fixedRaw + summaryTokens(room.limit);
  return cuts.find((i) => frame.gauge.estimate(head + after[i]!) <= room.limit * share) ?? cuts.at(-1)!;
}

function sendableOf(stored: StoredHistory, stubbed: ReadonlySet<string>, files: DriveFiles): Anthropic.MessageParam[] {
  const head: StoredMessage[] = stored.summary ? [summaryMessage(stored.summary)] : [];
  return toMessageParams([...head, ...files.apply(withStubs(stored.messages, stubbed))]);
}

function rawOf(frame: StepFrame, messages: readonly Anthropic.MessageParam[]): number {
  let total = frame.fixedRaw;
  for (const m of messages) total += estimateMessageTokens(m);
  return total;
}

function storedTokens(m: StoredMessage): number {
  return estimateMessageTokens({ role: m.role, content: m.content });
}

/** Results are stubbed a tenth of the room at a time: few changes to the cached prefix, each one worth it. */
function chunkTokens(room: StepRoom): number {
  return Math.max(STUB_MIN_TOKENS, Math.floor(room.limit / 10));
}

function countStubbed(stored: StoredHistory, stubbed: ReadonlySet<string>): number {
  if (!stubbed.size) return 0;
  let n = 0;
  for (const m of stored.messages.slice(0, -1)) for (const b of m.content) if (b.type === 'tool_result' && stubbed.has(b.tool_use_id)) n++;
  return n;
}

/** The API's count of a request's input tokens, or null when it could not say (the estimate is used then). */
export async function countInputTokens(client: Anthropic, params: Anthropic.MessageCountTokensParams): Promise<number | null> {
  try {
    return (await client.messages.countTokens(params)).input_tokens;
  } catch {
    return null;
  }
}
