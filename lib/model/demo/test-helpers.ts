import type Anthropic from '@anthropic-ai/sdk';

import { createModelClient } from '../client';

// Shared by the demo model's tests (not shipped code): a real SDK client on
// the demo model, and small request builders.

export function demoClient(delayMs = 0): Anthropic {
  // No API key and no base URL → the demo model, as in a fresh checkout.
  return createModelClient({ DEMO_MODEL_DELAY_MS: String(delayMs) });
}

export function textOf(message: Anthropic.Message): string {
  return message.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
}

export function toolUses(message: Anthropic.Message): Anthropic.ToolUseBlock[] {
  return message.content.filter((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use');
}

export const notesSearchTool: Anthropic.Tool = {
  name: 'notes__search',
  description: 'Search notes',
  input_schema: {
    type: 'object',
    properties: {
      query: { type: 'string', examples: ['groceries'] },
      limit: { type: 'integer', minimum: 5 },
      sort: { type: 'string', enum: ['relevance', 'date'] },
      includeArchived: { type: 'boolean' },
      tags: { type: 'array', items: { type: 'string' } },
      filter: {
        type: 'object',
        properties: { folder: { type: 'string', default: 'inbox' }, color: { type: 'string' } },
        required: ['folder'],
      },
      optional: { type: 'string' },
    },
    required: ['query', 'limit', 'sort', 'includeArchived', 'tags', 'filter'],
  },
};

export const filesReadTool: Anthropic.Tool = {
  name: 'files__read',
  input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
};

export function userSays(text: string): Anthropic.MessageParam[] {
  return [{ role: 'user', content: text }];
}

/**
 * Tracks the timers started while it is installed, to prove an aborted stream
 * leaves none pending. (process.getActiveResourcesInfo() also sees the test
 * runner's own timers, which come and go, so it cannot tell.)
 */
export function trackTimers(): { pending: () => number; restore: () => void } {
  const realSet = globalThis.setTimeout;
  const realClear = globalThis.clearTimeout;
  const live = new Set<unknown>();
  const tracked = (fn: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => {
    const handle = realSet(() => {
      live.delete(handle);
      fn(...args);
    }, ms);
    live.add(handle);
    return handle;
  };
  globalThis.setTimeout = tracked as unknown as typeof setTimeout;
  globalThis.clearTimeout = ((handle: Parameters<typeof clearTimeout>[0]) => {
    live.delete(handle);
    realClear(handle);
  }) as typeof clearTimeout;
  return {
    pending: () => live.size,
    restore: () => {
      globalThis.setTimeout = realSet;
      globalThis.clearTimeout = realClear;
    },
  };
}
