import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';

import { ImportSummary } from './import-dialog';
import { ServerCard } from './server-card';
import { ServerFormDialog } from './server-form-dialog';
import {
  annotationBadges,
  emptyForm,
  enableBody,
  formFieldOf,
  formFrom,
  needsReview,
  oauthActions,
  oauthReturnOf,
  parseImport,
  reviewMark,
  serverBody,
  SIGN_IN_FAILED,
  signedInNotice,
  TRUST_HINTS,
  urlChangeDropsSecrets,
  type ServerView,
} from './server-view';

const tool = (name: string, over: Partial<ServerView['tools'][number]> = {}): ServerView['tools'][number] => ({
  name,
  title: null,
  description: `${name} does things`,
  annotations: null,
  fingerprint: `fp-${name}`,
  reviewed: false,
  view: null,
  ...over,
});

function server(over: Partial<ServerView> = {}): ServerView {
  return {
    id: 's1',
    name: 'Fixture',
    namespace: 'fixture',
    url: 'https://mcp.example.test/mcp',
    trust: 'untrusted',
    trustContent: false,
    showViews: true,
    timeoutMs: 30_000,
    enabled: false,
    builtin: false,
    headerNames: ['X-Api-Key'],
    oauthClient: null,
    status: 'connected',
    lastError: null,
    protocolVersion: '2026-07-28',
    transport: 'streamable_http',
    checkedAt: '2026-12-01T01:00:00.000Z',
    toolsChanged: false,
    tools: [
      tool('echo', { annotations: { readOnlyHint: true, idempotentHint: true } }),
      tool('add'),
      tool('delete_everything', { annotations: { destructiveHint: true } }),
    ],
    skipped: [{ name: 'weird', reason: 'Its input schema is nested deeper than 32 levels.' }],
    signedIn: false,
    org: null,
    ...over,
  };
}

describe('annotations', () => {
  it('says "not annotated" for null or empty annotations', () => {
    expect(annotationBadges(null).map((b) => b.label)).toEqual(['not annotated']);
    expect(annotationBadges({}).map((b) => b.label)).toEqual(['not annotated']);
  });
  it('lists each hint as a badge; read-only wins over a contradicting destructive hint', () => {
    expect(annotationBadges({ readOnlyHint: true, idempotentHint: true, openWorldHint: true }).map((b) => b.label)).toEqual([
      'read-only',
      'idempotent',
      'open world',
    ]);
    expect(annotationBadges({ destructiveHint: true }).map((b) => [b.label, b.tone])).toEqual([['destructive', 'danger']]);
    expect(annotationBadges({ readOnlyHint: true, destructiveHint: true }).map((b) => b.label)).toEqual(['read-only']);
    expect(annotationBadges({ readOnlyHint: false, destructiveHint: false })).toEqual([]);
  });
});

describe('review', () => {
  it('is needed for unreviewed or changed tools, never for built-in servers or an empty list', () => {
    expect(needsReview(server())).toBe(true);
    expect(needsReview(server({ tools: server().tools.map((t) => ({ ...t, reviewed: true })) }))).toBe(false);
    expect(needsReview(server({ toolsChanged: true, tools: [tool('echo', { reviewed: true })] }))).toBe(true);
    expect(needsReview(server({ builtin: true }))).toBe(false);
    expect(needsReview(server({ tools: [] }))).toBe(false);
  });
  it('marks new or changed tools only when some were reviewed before', () => {
    const first = server();
    expect(first.tools.map((t) => reviewMark(first, t))).toEqual([null, null, null]);
    const later = server({ toolsChanged: true, tools: [tool('echo', { reviewed: true }), tool('add')] });
    expect(later.tools.map((t) => reviewMark(later, t))).toEqual([null, 'new or changed']);
  });
  it('enables exactly the definitions shown, by fingerprint', () => {
    expect(enableBody(server())).toEqual({ tools: { echo: 'fp-echo', add: 'fp-add', delete_everything: 'fp-delete_everything' } });
  });
});

describe('the add / edit body', () => {
  it('sends an add with headers and an OAuth client, without empty rows', () => {
    const form = {
      ...emptyForm(),
      name: ' Fixture ',
      url: 'https://mcp.example.test/mcp',
      timeoutSeconds: '12',
      headers: [
        { key: 1, name: 'X-Api-Key', value: 'secret' },
        { key: 2, name: '', value: '' },
      ],
      clientId: 'client-1',
    };
    expect(serverBody(form)).toEqual({
      body: {
        name: 'Fixture',
        url: 'https://mcp.example.test/mcp',
        trust: 'untrusted',
        trustContent: false,
        timeoutMs: 12_000,
        headers: { 'X-Api-Key': 'secret' },
        oauthClient: { clientId: 'client-1' },
      },
    });
  });
  it('names the field of a problem it can see itself', () => {
    expect(serverBody({ ...emptyForm(), url: 'https://x.test' })).toEqual({
      problem: { field: 'name', message: 'Give the server a name.' },
    });
    expect(serverBody({ ...emptyForm(), name: 'A' })).toMatchObject({ problem: { field: 'url' } });
    expect(serverBody({ ...emptyForm(), name: 'A', url: 'https://x.test', timeoutSeconds: '0' })).toMatchObject({
      problem: { field: 'timeoutMs' },
    });
    const dup = [
      { key: 1, name: 'X-Key', value: 'a' },
      { key: 2, name: 'x-key', value: 'b' },
    ];
    expect(serverBody({ ...emptyForm(), name: 'A', url: 'https://x.test', headers: dup })).toMatchObject({ problem: { field: 'headers' } });
    expect(serverBody({ ...emptyForm(), name: 'A', url: 'https://x.test', clientSecret: 's' })).toMatchObject({
      problem: { field: 'oauthClient' },
    });
  });
  it('an edit sends only what changed, and headers only when replaced', () => {
    const original = server({ oauthClient: { clientId: 'c', hasSecret: true } });
    expect(serverBody(formFrom(original), original)).toEqual({ body: {} });
    expect(serverBody({ ...formFrom(original), url: 'https://other.test/mcp' }, original)).toEqual({
      body: { url: 'https://other.test/mcp' },
    });
    expect(
      serverBody(
        { ...formFrom(original), replaceHeaders: true, headers: [{ key: 1, name: 'Authorization', value: 'Bearer x' }] },
        original,
      ),
    ).toEqual({ body: { headers: { Authorization: 'Bearer x' } } });
    expect(serverBody({ ...formFrom(original), clientId: '' }, original)).toEqual({ body: { oauthClient: null } });
    // The two trusts are separate switches, each sent only when changed.
    expect(serverBody({ ...formFrom(original), trust: 'trusted' }, original)).toEqual({ body: { trust: 'trusted' } });
    expect(serverBody({ ...formFrom(original), trustContent: true }, original)).toEqual({ body: { trustContent: true } });
    // A stored header left empty is kept (null) on the same URL, never across a new one.
    const keep = { ...formFrom(original), replaceHeaders: true };
    expect(serverBody(keep, original)).toEqual({ body: { headers: { 'X-Api-Key': null } } });
    expect(serverBody({ ...keep, url: 'https://other.test/mcp' }, original)).toEqual({
      body: { url: 'https://other.test/mcp', headers: { 'X-Api-Key': '' } },
    });
  });
  it('warns that a new URL drops stored secrets only when there are some', () => {
    const original = server();
    expect(urlChangeDropsSecrets(formFrom(original), original)).toBe(false);
    expect(urlChangeDropsSecrets({ ...formFrom(original), url: 'https://other.test' }, original)).toBe(true);
    const bare = server({ headerNames: [] });
    expect(urlChangeDropsSecrets({ ...formFrom(bare), url: 'https://other.test' }, bare)).toBe(false);
  });
  it('maps API error fields to form fields', () => {
    expect(formFieldOf('headers.X-Api-Key')).toBe('headers');
    expect(formFieldOf('oauthClient.clientId')).toBe('oauthClient');
    expect(formFieldOf('url')).toBe('url');
    expect(formFieldOf(undefined)).toBeUndefined();
  });
});

describe('import text', () => {
  it('parses an object and says what is wrong otherwise', () => {
    expect(parseImport('{"mcpServers": {}}')).toEqual({ config: { mcpServers: {} } });
    expect(parseImport('  ')).toEqual({ problem: 'Paste a configuration or choose a file.' });
    expect(parseImport('[1]')).toMatchObject({ problem: expect.stringContaining('JSON object') });
    expect(parseImport('{nope')).toMatchObject({ problem: expect.stringContaining('not valid JSON') });
  });
});

describe('oauth actions', () => {
  it('offers Connect on needs_sign_in and Disconnect when signed in', () => {
    expect(oauthActions(server())).toEqual({ connect: false, disconnect: false });
    expect(oauthActions(server({ status: 'needs_sign_in' }))).toEqual({ connect: true, disconnect: false });
    expect(oauthActions(server({ signedIn: true }))).toEqual({ connect: false, disconnect: true });
    // The organization's credential is not the person's to sign in with: a refusal is for its admins.
    const org = { serverId: 'o1', orgId: 'g1', orgName: 'Acme', required: true };
    expect(oauthActions(server({ status: 'needs_sign_in', org: { ...org, auth: 'shared' } })).connect).toBe(false);
    expect(oauthActions(server({ status: 'needs_sign_in', org: { ...org, auth: 'oauth' } })).connect).toBe(true);
  });
  it('after signing in, says the tools still need review until they are enabled', () => {
    expect(signedInNotice(server())).toBe('Signed in to Fixture. Review its tools below; Claude can use them once you enable them.');
    const enabled = server({ enabled: true, tools: server().tools.map((t) => ({ ...t, reviewed: true })) });
    expect(signedInNotice(enabled)).toBe('Signed in to Fixture. Its tools can be used now.');
    expect(signedInNotice(undefined)).toBe('Signed in. Its tools can be used once enabled.');
  });
});

describe('the server card', () => {
  const html = (s: ServerView) => renderToStaticMarkup(createElement(ServerCard, { server: s, onChange: () => {} }));

  it('says which trust the person gave: its annotations, its content, both or neither', () => {
    const words = (s: ServerView) =>
      [...html(s).matchAll(/>(untrusted|annotations trusted|content trusted|content untrusted)</g)].map((m) => m[1]);
    expect(words(server())).toEqual(['untrusted', 'content untrusted']);
    expect(words(server({ trust: 'trusted' }))).toEqual(['annotations trusted', 'content untrusted']);
    expect(words(server({ trust: 'trusted', trustContent: true }))).toEqual(['annotations trusted', 'content trusted']);
  });

  it("the form's trust hint says what an untrusted server's content changes", () => {
    expect(TRUST_HINTS.content).toMatch(/reaches outside systems/);
    expect(TRUST_HINTS.content).toMatch(/read-only claim it does not believe/);
    expect(TRUST_HINTS.content).toMatch(/reading your notes/);
    expect(TRUST_HINTS.content).toMatch(/even on a trusted server/);
    const form = renderToStaticMarkup(createElement(ServerFormDialog, { open: true, onClose: () => {}, onSaved: () => {} }));
    expect(form).toContain('Trust its annotations');
    expect(form).toContain('Trust its content');
    expect(form).toContain('role="switch"');
  });

  it('shows status in words, header names and never a value, the review before anything is enabled', () => {
    const out = html(server());
    expect(out).toContain('Connected');
    expect(out).toContain('untrusted');
    expect(out).toContain('2026-07-28');
    expect(out).toContain('Streamable HTTP');
    expect(out).toContain('X-Api-Key');
    expect(out).toContain('(values hidden)');
    expect(out).toContain('Review what this server will be able to do');
    expect(out).toContain('Enable these tools');
    expect(out).toContain('not annotated');
    expect(out).toContain('1 tool says it can delete or overwrite.');
    expect(out).toContain('Its input schema is nested deeper than 32 levels.');
    for (const action of ['Test connection', 'Refresh tools', 'Edit', 'Remove']) expect(out).toContain(action);
    expect(out).not.toContain('>Connect<');
  });
  it('shows the last error and Connect when sign-in is needed', () => {
    const out = html(server({ status: 'needs_sign_in', lastError: 'The server asks you to sign in.', tools: [] }));
    expect(out).toContain('Needs sign-in');
    expect(out).toContain('The server asks you to sign in.');
    expect(out).toContain('Connect');
  });
  it('lists enabled tools without the review; a built-in server has no actions', () => {
    const enabled = server({ tools: server().tools.map((t) => ({ ...t, reviewed: true })) });
    expect(html(enabled)).not.toContain('Enable these tools');
    expect(html(enabled)).toContain('Tools (3)');
    const builtin = html(server({ builtin: true, name: 'Notes', headerNames: [] }));
    expect(builtin).toContain('built in');
    expect(builtin).not.toContain('Remove');
    expect(builtin).not.toContain('Enable these tools');
  });
});

describe('the import summary', () => {
  it('counts added, not usable (with the reason) and problems', () => {
    const out = renderToStaticMarkup(
      createElement(ImportSummary, {
        result: {
          added: [server({ id: 'a', name: 'one' }), server({ id: 'b', name: 'two' })],
          notUsable: [{ name: 'filesystem', reason: 'It runs a local command (stdio), which a web app cannot start.' }],
          problems: [{ name: 'bad', field: 'url', message: 'Not a URL.' }],
        },
      }),
    );
    expect(out).toContain('Added: 2');
    expect(out).toContain('Not usable here: 1');
    expect(out).toContain('a web app cannot start');
    expect(out).toContain('Problems: 1');
  });
});

describe('the OAuth callback coming back to the page', () => {
  const query = (q: Record<string, string>) => (key: string) => q[key];

  it("says a known reason in the page's own words, never the text a link carries", () => {
    const back = oauthReturnOf(query({ oauth: 'failed', reason: 'denied', message: 'Call +1 555 0100 to restore your account.' }));
    expect(back).toEqual({ kind: 'failed', message: SIGN_IN_FAILED.denied });
    expect(JSON.stringify(back)).not.toContain('555');
  });

  it('says one generic sentence for a missing or unknown reason', () => {
    for (const reason of [undefined, 'Your account is locked, visit evil.example', 'toString', '__proto__']) {
      const back = oauthReturnOf(query({ oauth: 'failed', ...(reason !== undefined && { reason }), message: 'visit evil.example' }));
      expect(back).toEqual({ kind: 'failed', message: 'Signing in failed. Try again.' });
    }
  });

  it('reads a connected return, and nothing without the flag', () => {
    expect(oauthReturnOf(query({ oauth: 'connected', server: 's-1' }))).toEqual({ kind: 'connected', serverId: 's-1' });
    expect(oauthReturnOf(query({ message: 'hello' }))).toBeNull();
  });
});
