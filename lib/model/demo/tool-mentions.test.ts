import { describe, expect, it } from 'vitest';

import { findToolMentions } from './tool-mentions';

describe('findToolMentions', () => {
  it('finds namespaced names in order of first appearance, each once', () => {
    expect(findToolMentions('use b__two then a__one, then b__two again', [])).toEqual([
      { name: 'b__two', args: undefined },
      { name: 'a__one', args: undefined },
    ]);
  });

  it('finds exact offered names as whole words only', () => {
    const offered = ['search', 'read'];
    expect(findToolMentions('please search my notes', offered).map((m) => m.name)).toEqual(['search']);
    expect(findToolMentions('researching and reading', offered)).toEqual([]);
  });

  it('takes the JSON of a `call <name> {json}` line as the input', () => {
    expect(findToolMentions('first line\ncall weather {"city": "Oslo"}\nthanks', [])).toEqual([
      { name: 'weather', args: { city: 'Oslo' } },
    ]);
  });

  it('treats unparseable or non-object JSON as no args', () => {
    expect(findToolMentions('call x__y {not json}', [])).toEqual([{ name: 'x__y', args: undefined }]);
    expect(findToolMentions('call x__y {"a": [1,2]', [])).toEqual([{ name: 'x__y', args: undefined }]);
  });

  it('does not take tool names inside call arguments as more calls', () => {
    expect(findToolMentions('call a__b {"note": "then c__d"}', []).map((m) => m.name)).toEqual(['a__b']);
  });

  it('does not turn an ordinary sentence starting with "call" into a tool', () => {
    expect(findToolMentions('Call me later, please.', [])).toEqual([]);
  });

  it('lets explicit args win over an earlier bare mention of the same tool', () => {
    expect(findToolMentions('I want notes__find.\ncall notes__find {"q": "x"}', [])).toEqual([{ name: 'notes__find', args: { q: 'x' } }]);
  });
});
