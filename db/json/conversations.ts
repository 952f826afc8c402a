import type Anthropic from '@anthropic-ai/sdk';
import { z } from 'zod';

import { DEFAULT_THINKING_EFFORT, TAINT_SOURCES, THINKING_EFFORTS } from '../vocabulary';
import { iso } from './common';

/**
 * The JSON columns of conversations, runs and messages: taint, fork origin, thinking, a run's
 * error, usage and names, message content and origin. See db/stored-json.ts for the rules every
 * shape follows.
 */

// ── conversations.tainted: how text from an untrusted server first entered the model's context ──
const taintV1 = z.object({
  v: z.literal(1),
  at: iso,
  source: z.enum(TAINT_SOURCES),
  serverId: z.string(),
  serverName: z.string(),
  /** The tool whose description, result, question or progress it was, when known. */
  tool: z.string().optional(),
  /** The prompt the person ran (source `prompt`). */
  prompt: z.string().optional(),
  /** The resource the person attached (source `resource`). */
  uri: z.string().optional(),
});
export type StoredTaint = z.infer<typeof taintV1>;
export const storedTaint = taintV1;
// ── conversations.forked_from: the share link's snapshot a conversation was continued from ──
const forkOriginV1 = z.object({
  v: z.literal(1),
  /** The shared conversation's title at the snapshot. */
  title: z.string(),
  snapshotAt: iso,
  /** Whether the owner had hidden tool arguments and results (the copies then say so). */
  toolDetailsHidden: z.boolean(),
});
export type StoredForkOrigin = z.infer<typeof forkOriginV1>;
export const storedForkOrigin = forkOriginV1;

// ── conversations.thinking and runs.thinking: extended thinking, per conversation, fixed per run ──
// `budgetTokens` is what a model that takes a budget may think; `effort` is how hard a model that
// only thinks adaptively works (lib/agent/thinking.ts picks one per model).
const thinkingV2 = z.object({ v: z.literal(2), enabled: z.boolean(), budgetTokens: z.number().int(), effort: z.enum(THINKING_EFFORTS) });
export type StoredThinking = z.infer<typeof thinkingV2>;
/** Version 1 had no effort: the API's default. */
const thinkingV1 = z
  .object({ v: z.literal(1), enabled: z.boolean(), budgetTokens: z.number().int() })
  .transform((o): StoredThinking => ({ ...o, v: 2, effort: DEFAULT_THINKING_EFFORT }));
export const storedThinking = z.union([thinkingV2, thinkingV1]);

// ── runs.error, runs.usage, runs.name_map ──────────────────────────────────────────────────
export const storedRunError = z.object({ v: z.literal(1).optional(), code: z.string(), message: z.string() });
export type StoredRunError = z.infer<typeof storedRunError>;

/**
 * A turn's tokens, summed over its model calls: input (not cached), output, and the prompt cache's
 * writes and reads (absent on rows from before prompt caching: zero).
 */
export const storedUsage = z.looseObject({
  inputTokens: z.number(),
  outputTokens: z.number(),
  cacheCreationInputTokens: z.number().optional(),
  cacheReadInputTokens: z.number().optional(),
});
export type StoredUsage = z.infer<typeof storedUsage>;

export const storedNameMap = z.record(z.string(), z.object({ serverId: z.string(), tool: z.string() }));
export type StoredNameMap = z.infer<typeof storedNameMap>;
// ── messages.content: Anthropic-native content blocks, stored verbatim ────────────────────
const contentBlocksShape = z.array(z.looseObject({ type: z.string() }));
/** A message's content as the Messages API takes it back: an array of typed blocks. */
export const storedMessageContent = z.custom<Anthropic.ContentBlockParam[]>((value) => contentBlocksShape.safeParse(value).success, {
  error: 'must be an array of content blocks, each with a type',
});
export type StoredMessageContent = Anthropic.ContentBlockParam[];

// ── messages.origin: what an MCP server put into a user message (a prompt, resources) ──────
const promptOriginV1 = z.object({
  v: z.literal(1),
  kind: z.literal('prompt'),
  serverId: z.string(),
  serverName: z.string(),
  name: z.string(),
});
const resourcesOriginV1 = z.object({
  v: z.literal(1),
  kind: z.literal('resources'),
  resources: z.array(
    z.object({
      serverId: z.string(),
      serverName: z.string(),
      uri: z.string(),
      /** The resource's name as listed (when the person picked it from a list). */
      name: z.string().optional(),
      mimeType: z.string().optional(),
      /** Characters of its text before any cut, and whether the model got only the first part. */
      chars: z.number().int().optional(),
      truncated: z.boolean().optional(),
    }),
  ),
});
/** What interactive views told the model since its last turn (MCP Apps `ui/update-model-context`): lib/agent/view-context-turn.ts. */
const viewContextOriginV1 = z.object({
  v: z.literal(1),
  kind: z.literal('view_context'),
  views: z.array(z.object({ toolCallId: z.string(), serverId: z.string(), serverName: z.string(), tool: z.string(), at: iso })),
});
export const storedMessageOrigin = z.discriminatedUnion('kind', [promptOriginV1, resourcesOriginV1, viewContextOriginV1]);
export type StoredMessageOrigin = z.infer<typeof storedMessageOrigin>;
