import { describe, expect, it } from 'vitest';

import { DEFAULT_TOOL_SEARCH, overToolBudget, roomBesideSearch, toolSearchSettingsFrom, toolsToKeep } from './tool-budget';

const tool = (name: string, description = 'x') => ({ name, description, input_schema: { type: 'object' as const } });

describe('toolSearchSettingsFrom', () => {
  it('defaults to 40 tools, ~10k tokens and the 10 most recent tools', () => {
    expect(toolSearchSettingsFrom({})).toEqual({ maxTools: 40, maxTokens: 10_000, recentTools: 10 });
    expect(DEFAULT_TOOL_SEARCH).toEqual({ maxTools: 40, maxTokens: 10_000, recentTools: 10 });
  });

  it('reads each value from its variable and refuses anything below its minimum or not an integer, naming it', () => {
    expect(
      toolSearchSettingsFrom({ TOOL_SEARCH_MAX_TOOLS: '100', TOOL_SEARCH_MAX_TOKENS: ' 2000 ', TOOL_SEARCH_RECENT_TOOLS: '0' }),
    ).toEqual({
      maxTools: 100,
      maxTokens: 2000,
      recentTools: 0,
    });
    expect(() => toolSearchSettingsFrom({ TOOL_SEARCH_MAX_TOOLS: 'many' })).toThrow(
      /TOOL_SEARCH_MAX_TOOLS must be an integer of at least 2, got "many"/,
    );
    // The search tool and one tool it found must fit.
    expect(() => toolSearchSettingsFrom({ TOOL_SEARCH_MAX_TOOLS: '1' })).toThrow(/at least 2, got "1"/);
    expect(() => toolSearchSettingsFrom({ TOOL_SEARCH_MAX_TOKENS: '-1' })).toThrow(/TOOL_SEARCH_MAX_TOKENS/);
  });
});

describe('overToolBudget', () => {
  const settings = { maxTools: 3, maxTokens: 1000, recentTools: 2 };

  it('is over past the number of tools', () => {
    expect(overToolBudget([tool('a'), tool('b'), tool('c')], settings)).toBe(false);
    expect(overToolBudget([tool('a'), tool('b'), tool('c'), tool('d')], settings)).toBe(true);
  });

  it('is over past the estimated tokens, however few the tools', () => {
    expect(overToolBudget([tool('a', 'y'.repeat(3800))], settings)).toBe(false);
    expect(overToolBudget([tool('a', 'y'.repeat(4200))], settings)).toBe(true);
  });
});

describe('roomBesideSearch', () => {
  it('leaves one place of the budget to the search tool', () => {
    expect(roomBesideSearch(DEFAULT_TOOL_SEARCH)).toBe(39);
    expect(roomBesideSearch({ ...DEFAULT_TOOL_SEARCH, maxTools: 2 })).toBe(1);
  });
});

describe('toolsToKeep', () => {
  const enabled = new Set(['s/a', 's/b', 's/c', 't/d']);
  const k = (serverId: string, tool: string) => ({ serverId, tool });

  it('keeps found tools first, then recent ones, once each, up to the room', () => {
    expect([...toolsToKeep(enabled, [k('s', 'c'), k('s', 'a')], [k('s', 'a'), k('t', 'd'), k('s', 'b')], 3)]).toEqual([
      's/c',
      's/a',
      't/d',
    ]);
    expect(toolsToKeep(enabled, [k('s', 'a')], [k('s', 'b')], 0).size).toBe(0);
  });

  it('never keeps a tool that is not enabled (a grant revoked since it was found or used)', () => {
    expect([...toolsToKeep(enabled, [k('x', 'gone')], [k('s', 'gone'), k('s', 'b')], 5)]).toEqual(['s/b']);
  });
});
