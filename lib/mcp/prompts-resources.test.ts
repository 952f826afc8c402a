import { UriTemplate } from '@modelcontextprotocol/client';
import { createMcpHandler, Server } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  FIXTURE_BIG_CHARS,
  FIXTURE_BIG_URI,
  FIXTURE_GREETING_TEMPLATE,
  FIXTURE_IMAGE_URI,
  FIXTURE_README_TEXT,
  FIXTURE_README_URI,
} from '@/test/fixtures/fixture-content';
import { TINY_PNG_BASE64 } from '@/test/fixtures/fixture-tools';
import { startFixtureServer, type FixtureServer } from '@/test/fixtures/mcp-fixture-server';
import { loopbackFetch } from '@/test/loopback-fetch';

import { inProcessFetch } from './builtin';
import { getPrompt, listPrompts, promptArgumentProblem } from './prompts';
import { resourceLinksIn } from './resource-links';
import { listResources, readResource } from './resources';
import { contentToParts } from './result-parts';
import type { McpServerConfig } from './types';
import { expandTemplate, templateVariables } from './uri-template';

/** Prompts and resources through the same connection path as tool calls, against a real fixture server on 127.0.0.1. */

let fx: FixtureServer;
let legacy: FixtureServer;
const deps = { fetch: loopbackFetch };
const caller = { userId: 'user-1', conversationId: 'conv-1' };
const config = (url: string, extra: Partial<McpServerConfig> = {}): McpServerConfig => ({
  id: 'srv-fx',
  namespace: 'fx',
  displayName: 'Fixture',
  url,
  trust: 'untrusted',
  timeoutMs: 5_000,
  ...extra,
});

beforeAll(async () => {
  [fx, legacy] = await Promise.all([startFixtureServer(), startFixtureServer({ legacyOnly: true })]);
});
afterAll(() => Promise.all([fx.close(), legacy.close()]));

describe('prompts', () => {
  it('lists each prompt with its arguments, required ones marked, on both protocol eras', async () => {
    for (const server of [fx, legacy]) {
      const listed = await listPrompts(deps, config(server.url), caller);
      if (!listed.ok) throw new Error(listed.message);
      expect(listed.value.map((p) => p.name)).toEqual(['summarize', 'review_draft', 'assistant_last', 'huge']);
      expect(listed.value[0]).toEqual({
        name: 'summarize',
        title: 'Summarize a topic',
        description: 'Asks for a short summary of a topic.',
        arguments: [
          { name: 'topic', description: 'What to summarize', required: true },
          { name: 'style', description: 'How to write it (e.g. brief)', required: false },
        ],
      });
    }
  });

  it('renders a prompt with its arguments, and messages of both roles in order', async () => {
    const rendered = await getPrompt(deps, config(fx.url), caller, 'summarize', { topic: 'tides', style: 'brief' });
    expect(rendered).toEqual({
      ok: true,
      value: {
        description: 'A summary request',
        messages: [{ role: 'user', content: { type: 'text', text: 'Summarize tides in a brief style.' } }],
      },
    });
    const review = await getPrompt(deps, config(fx.url), caller, 'review_draft', {});
    expect(review.ok && review.value.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
  });

  it('an unknown prompt, or an unreachable server, is a sentence naming the server, not a throw', async () => {
    const unknown = await getPrompt(deps, config(fx.url), caller, 'nope', {});
    expect(unknown).toMatchObject({ ok: false, message: expect.stringContaining('Fixture') });
    expect(!unknown.ok && unknown.message).toMatch(/No prompt named nope/);
    const down = await listPrompts(deps, config('http://127.0.0.1:9/mcp'), caller);
    expect(down).toMatchObject({ ok: false, message: expect.stringContaining('Fixture') });
  });

  it('a remote server without a guarded fetch is refused (no fall back to the global fetch)', async () => {
    const refused = await listPrompts({}, config(fx.url), caller);
    expect(refused).toMatchObject({ ok: false, message: expect.stringMatching(/remote servers are not enabled/) });
    expect(fx.requests.filter((r) => r.rpc === 'prompts/list').length).toBeGreaterThan(0); // only the earlier tests reached it
  });

  it('checks the arguments against the listing, naming the field', async () => {
    const listed = await listPrompts(deps, config(fx.url), caller);
    const summarize = listed.ok ? listed.value[0]! : null;
    expect(promptArgumentProblem(summarize!, {})).toEqual({
      field: 'prompt.arguments.topic',
      message: 'prompt.arguments.topic: the prompt "summarize" needs it (What to summarize)',
    });
    expect(promptArgumentProblem(summarize!, { topic: 'a', colour: 'red' })?.message).toBe(
      'prompt.arguments.colour: the prompt "summarize" takes no argument "colour" (it takes "topic", "style")',
    );
    expect(promptArgumentProblem(summarize!, { topic: 'x'.repeat(10_001) })?.field).toBe('prompt.arguments.topic');
    expect(promptArgumentProblem(summarize!, { topic: 'tides' })).toBeNull();
  });
});

describe('resources', () => {
  it('lists resources and templates with the variables a template asks for', async () => {
    const listed = await listResources(deps, config(fx.url), caller);
    if (!listed.ok) throw new Error(listed.message);
    expect(listed.value.resources.map((r) => r.uri)).toEqual([FIXTURE_README_URI, FIXTURE_BIG_URI, FIXTURE_IMAGE_URI]);
    expect(listed.value.resources[0]).toMatchObject({ name: 'readme', title: 'Fixture readme', mimeType: 'text/plain' });
    expect(listed.value.templates).toEqual([
      {
        uriTemplate: FIXTURE_GREETING_TEMPLATE,
        name: 'greeting',
        description: 'A greeting for a name.',
        mimeType: 'text/plain',
        variables: ['name'],
      },
    ]);
  });

  it('reads text, a blob, and a URI built from a template', async () => {
    expect(await readResource(deps, config(fx.url), caller, FIXTURE_README_URI)).toEqual({
      ok: true,
      value: [{ uri: FIXTURE_README_URI, mimeType: 'text/plain', text: FIXTURE_README_TEXT }],
    });
    const image = await readResource(deps, config(fx.url), caller, FIXTURE_IMAGE_URI);
    expect(image.ok && image.value[0]!.blob).toBe(TINY_PNG_BASE64);
    const uri = expandTemplate(FIXTURE_GREETING_TEMPLATE, { name: 'Ada Lovelace' });
    const greeting = await readResource(deps, config(fx.url), caller, uri);
    expect(greeting.ok && greeting.value[0]!.text).toBe('Hello, Ada Lovelace! This greeting came from a template.');
    const big = await readResource(deps, config(fx.url), caller, FIXTURE_BIG_URI);
    expect(big.ok && big.value[0]!.text!.length).toBeGreaterThan(FIXTURE_BIG_CHARS);
  });

  it('a resource the server does not have is a failure in words', async () => {
    const missing = await readResource(deps, config(fx.url), caller, 'fixture://nothing/here');
    expect(missing).toMatchObject({ ok: false, message: expect.stringContaining('Fixture') });
  });

  it('a server that offers neither lists nothing rather than failing (in-process, like a built-in)', async () => {
    const bare = createMcpHandler(() => new Server({ name: 'bare', version: '1.0.0' }, { capabilities: { tools: {} } }), {
      keepAliveMs: 0,
    });
    const builtin = config('builtin://bare', { builtin: true, trust: 'trusted' });
    const local = { inProcess: () => inProcessFetch(bare, undefined) };
    try {
      expect(await listResources(local, builtin, caller)).toEqual({ ok: true, value: { resources: [], templates: [] } });
      expect(await listPrompts(local, builtin, caller)).toEqual({ ok: true, value: [] });
    } finally {
      await bare.close();
    }
  });
});

describe('URI templates', () => {
  const cases: [string, Record<string, string>][] = [
    ['fixture://greetings/{name}', { name: 'Ada Lovelace' }],
    ['files{/path}{?rev,lang}', { path: 'a b/c', rev: '3', lang: 'en' }],
    ['notes://{+path}', { path: 'folder/sub dir/x.md' }],
    ['x://{a}{&b}', { a: '1', b: 'two words' }],
    ['x://{a}{?b}', { a: 'only' }],
  ];
  it.each(cases)('%s expands as the SDK expands it', (template, values) => {
    expect(expandTemplate(template, values)).toBe(new UriTemplate(template).expand(values));
    expect(templateVariables(template)).toEqual(new UriTemplate(template).variableNames);
  });
});

describe('resource links in a tool result', () => {
  it('finds each link the result parts wrote, once', () => {
    const parts = contentToParts([
      { type: 'resource_link', uri: 'fixture://docs/readme', name: 'readme', mimeType: 'text/plain' },
      { type: 'text', text: 'between' },
      { type: 'resource_link', uri: 'fixture://docs/readme', name: 'readme' },
      { type: 'resource_link', uri: 'notes://n/2', name: 'Second note' },
    ]);
    const text = parts.map((p) => (p.kind === 'text' ? p.text : '')).join('\n');
    expect(resourceLinksIn(text)).toEqual([
      { name: 'readme', uri: 'fixture://docs/readme' },
      { name: 'Second note', uri: 'notes://n/2' },
    ]);
    expect(resourceLinksIn('no links here [resource link: broken')).toEqual([]);
  });
});
