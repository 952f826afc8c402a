import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';

import { AttachedResources, PromptMark } from '../chat/message-origin';
import { ToolResultView } from '../tool-call/tool-result-view';
import { ComposerAttachProvider } from './attachment-chips';
import {
  addAttachment,
  atQuery,
  moveActive,
  promptArguments,
  promptFormProblems,
  promptItems,
  resourceItems,
  slashQuery,
  templateAttachment,
  withoutAtQuery,
  type ComposerAttachment,
  type ServerPrompts,
  type ServerResources,
} from './composer-offers';

const about = { trust: 'untrusted' as const, error: null, needsSignIn: false };
const prompts: ServerPrompts[] = [
  {
    ...about,
    serverId: 's1',
    serverName: 'Docs',
    prompts: [
      {
        name: 'summarize',
        title: 'Summarize a topic',
        arguments: [
          { name: 'topic', required: true },
          { name: 'style', required: false },
        ],
      },
      { name: 'review_draft', description: 'Check a draft', arguments: [] },
    ],
  },
  { ...about, serverId: 's2', serverName: 'Wiki', prompts: [{ name: 'explain', arguments: [] }] },
];
const resources: ServerResources[] = [
  {
    ...about,
    serverId: 's1',
    serverName: 'Docs',
    resources: [{ uri: 'fixture://docs/readme', name: 'readme', title: 'Fixture readme' }],
    templates: [{ uriTemplate: 'fixture://greetings/{name}', name: 'greeting', variables: ['name'] }],
  },
];

describe('when a menu is open', () => {
  it('`/` opens only at the start of an empty message, until a space', () => {
    expect(slashQuery('/')).toBe('');
    expect(slashQuery('/sum')).toBe('sum');
    expect(slashQuery('/sum it')).toBeNull();
    expect(slashQuery('see /sum')).toBeNull();
    expect(slashQuery('')).toBeNull();
  });

  it('`@` opens for the word before the caret, at the start or after a space, and leaves the text when chosen', () => {
    expect(atQuery('@rea', 4)).toEqual({ query: 'rea', start: 0 });
    expect(atQuery('look at @rea and', 12)).toEqual({ query: 'rea', start: 8 });
    expect(atQuery('mail me@example.com', 19)).toBeNull();
    expect(atQuery('look at @rea and', 16)).toBeNull(); // the caret moved past it
    expect(withoutAtQuery('look at @rea and', 12)).toBe('look at  and');
    expect(withoutAtQuery('@rea', 4)).toBe('');
  });
});

describe('what the menus list', () => {
  it('filters prompts by name, title, description or server, keeping each server', () => {
    expect(promptItems(prompts, '').map((p) => p.key)).toEqual(['s1/summarize', 's1/review_draft', 's2/explain']);
    expect(promptItems(prompts, 'TOPIC').map((p) => p.prompt.name)).toEqual(['summarize']);
    expect(promptItems(prompts, 'draft').map((p) => p.prompt.name)).toEqual(['review_draft']);
    expect(promptItems(prompts, 'wiki').map((p) => p.serverName)).toEqual(['Wiki']);
  });

  it('matches the start of a word, not its inside', () => {
    expect(promptItems(prompts, 're').map((p) => p.prompt.name)).toEqual(['review_draft']);
    expect(promptItems(prompts, 'raft')).toEqual([]); // inside "draft"
    expect(promptItems(prompts, 'ize')).toEqual([]); // inside "summarize"
    expect(promptItems(prompts, 'ocs')).toEqual([]); // inside the server's name
    expect(promptItems(prompts, 'a topic').map((p) => p.prompt.name)).toEqual(['summarize']);
  });

  it('lists resources, then templates, filtered by URI too', () => {
    expect(resourceItems(resources, '').map((r) => r.kind)).toEqual(['resource', 'template']);
    expect(resourceItems(resources, 'greetings').map((r) => r.kind)).toEqual(['template']);
    expect(resourceItems(resources, 'nothing')).toEqual([]);
  });

  it('moves the active option around the ends', () => {
    expect(moveActive(0, 3, -1)).toBe(2);
    expect(moveActive(2, 3, 1)).toBe(0);
    expect(moveActive(0, 0, 1)).toBe(0);
  });
});

describe('the forms and what is sent', () => {
  const summarize = prompts[0]!.prompts[0]!;
  it('a required argument left empty is a problem; an optional one left empty is not sent', () => {
    expect(promptFormProblems(summarize, { topic: '  ' })).toEqual({ topic: 'Required.' });
    expect(promptFormProblems(summarize, { topic: 'tides' })).toEqual({});
    expect(promptArguments(summarize, { topic: 'tides', style: '' })).toEqual({ topic: 'tides' });
  });

  it('a template makes its URI once every variable is filled in', () => {
    const item = resourceItems(resources, 'greeting')[0] as Extract<ReturnType<typeof resourceItems>[number], { kind: 'template' }>;
    expect(templateAttachment(item, {})).toBeNull();
    expect(templateAttachment(item, { name: 'Ada Lovelace' })).toEqual({
      ref: { serverId: 's1', uri: 'fixture://greetings/Ada%20Lovelace' },
      serverName: 'Docs',
      label: 'fixture://greetings/Ada%20Lovelace',
    });
  });

  it('attaches a resource once, and at most five', () => {
    const a = (uri: string): ComposerAttachment => ({ ref: { serverId: 's1', uri }, serverName: 'Docs', label: uri });
    let list = addAttachment([], a('x://1'));
    expect(addAttachment(list, a('x://1'))).toBe(list);
    expect(addAttachment(list, { ...a('x://1'), ref: { toolCallId: 't', uri: 'x://1' } })).toHaveLength(2);
    for (const n of [2, 3, 4, 5, 6]) list = addAttachment(list, a(`x://${n}`));
    expect(list.map((x) => x.ref.uri)).toEqual(['x://1', 'x://2', 'x://3', 'x://4', 'x://5']);
  });
});

describe('messages marked with their origin', () => {
  it('says which server and prompt a message came from', () => {
    const html = renderToStaticMarkup(
      createElement(PromptMark, { origin: { v: 1, kind: 'prompt', serverId: 's1', serverName: 'Docs', name: 'summarize' } }),
    );
    expect(html.replace(/<[^>]+>/g, '')).toBe('From Docs: summarize');
  });

  it('shows each attached resource as a card with its URI, server and size, the text inside', () => {
    const html = renderToStaticMarkup(
      createElement(AttachedResources, {
        origin: {
          v: 1,
          kind: 'resources',
          resources: [
            { serverId: 's1', serverName: 'Docs', uri: 'fixture://docs/big', chars: 100_027, truncated: true },
            { serverId: 's1', serverName: 'Docs', uri: 'fixture://images/pixel', mimeType: 'image/png', chars: 0, truncated: false },
          ],
        },
        blocks: [
          {
            type: 'document',
            title: 'fixture://docs/big',
            source: { type: 'text', media_type: 'text/plain', data: 'Start of the big document.' },
          },
        ],
      }),
    );
    const text = html.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
    expect(text).toContain('fixture://docs/big from Docs · 100,027 characters · the model read the first part');
    expect(text).toContain('Start of the big document.');
    expect(text).toContain('fixture://images/pixel from Docs');
    expect(html.match(/data-testid="attached-resource"/g)).toHaveLength(2);
    expect(html.match(/<details/g)).toHaveLength(1); // only the one with text opens
  });
});

describe('a resource link in a tool result', () => {
  const result = {
    isError: false,
    chars: 60,
    truncated: false,
    parts: [{ kind: 'output' as const, text: '[resource link: readme <fixture://docs/readme> (text/plain)]' }],
  };
  const render = (inComposer: boolean, attachFrom?: { toolCallId: string; serverName: string }) => {
    const view = createElement(ToolResultView, { result, attachFrom });
    return renderToStaticMarkup(inComposer ? createElement(ComposerAttachProvider, null, view) : view);
  };
  it('offers Attach on the conversation page, not on a shared page or without a call to read it through', () => {
    expect(render(true, { toolCallId: 't1', serverName: 'Docs' })).toContain('Attach readme');
    expect(render(false, { toolCallId: 't1', serverName: 'Docs' })).not.toContain('Attach');
    expect(render(true)).not.toContain('Attach');
  });
});
