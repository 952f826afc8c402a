import { describe, expect, it } from 'vitest';

import { rankTools, terms, WEIGHTS } from './tool-ranking';

const tools = [
  { name: 'notes__create_note', toolName: 'create_note', namespace: 'notes', description: 'Creates a new note with a title.' },
  { name: 'notes__search', toolName: 'search', namespace: 'notes', title: 'Search notes', description: 'Finds notes by words.' },
  { name: 'calendar__create_event', toolName: 'create_event', description: 'Adds an event to the calendar.' },
  { name: 'mail__send', toolName: 'send', description: 'Sends an email; can attach a note.' },
  { name: 'files__list', toolName: 'list', description: null },
];

const names = (query: string, limit = 10) => rankTools(query, tools, limit).map((r) => r.tool.name);

describe('terms', () => {
  it('splits on punctuation and camelCase, lower-cases, drops filler words and folds a plural s', () => {
    expect(terms('notes__createReminder')).toEqual(['note', 'create', 'reminder']);
    expect(terms('Send an e-mail to the team')).toEqual(['send', 'e', 'mail', 'team']);
    expect(terms('address class')).toEqual(['address', 'class']); // "ss" is not a plural
    expect(terms(null)).toEqual([]);
  });
});

describe('rankTools', () => {
  it('weighs a match in the tool name over the namespace or title over the description', () => {
    const ranked = rankTools('note', tools, 10);
    // tool name (create_note) > namespace and title (notes__search: the best place counts once) > description (mail__send)
    expect(ranked.map((r) => [r.tool.name, r.score])).toEqual([
      ['notes__create_note', WEIGHTS.name],
      ['notes__search', WEIGHTS.namespace],
      ['mail__send', WEIGHTS.description],
    ]);
  });

  it('splits a model-facing name into namespace and tool name when they are not given', () => {
    expect(rankTools('calendar', [{ name: 'calendar__create_event' }], 1)[0]!.score).toBe(WEIGHTS.namespace);
    expect(rankTools('event', [{ name: 'calendar__create_event' }], 1)[0]!.score).toBe(WEIGHTS.name);
  });

  it('adds up the query terms a tool matches and says which', () => {
    const [best] = rankTools('create a note', tools, 10);
    expect(best!.tool.name).toBe('notes__create_note');
    expect(best!.score).toBe(2 * WEIGHTS.name);
    expect(best!.matched).toEqual(['create', 'note']);
  });

  it('puts a tool named exactly first', () => {
    expect(names('calendar__create_event')[0]).toBe('calendar__create_event');
    expect(names('please call calendar__create_event now')[0]).toBe('calendar__create_event');
    expect(names('search')[0]).toBe('notes__search');
  });

  it('counts a word start of three letters or more at half weight, shorter ones not at all', () => {
    expect(rankTools('cal', tools, 10).map((r) => [r.tool.name, r.score])).toEqual([
      ['calendar__create_event', WEIGHTS.namespace * WEIGHTS.prefixFactor],
    ]);
    expect(names('ca')).toEqual([]);
  });

  it('leaves out tools that match nothing, keeps the given order on ties, and honours the limit', () => {
    expect(names('weather')).toEqual([]);
    expect(names('')).toEqual([]);
    expect(names('create')).toEqual(['notes__create_note', 'calendar__create_event']);
    expect(names('create', 1)).toEqual(['notes__create_note']);
    expect(names('create', 0)).toEqual([]);
  });
});
