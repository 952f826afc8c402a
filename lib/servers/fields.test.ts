import { describe, expect, it } from 'vitest';

import {
  checkBody,
  checkHeaders,
  checkName,
  checkNamespace,
  checkOAuthClient,
  checkTimeout,
  checkTrust,
  checkTrustContent,
  checkUrl,
  FieldProblem,
  headerNameProblem,
  namespaceFromName,
} from './fields';

function problem(fn: () => unknown): { field?: string; message: string } {
  try {
    fn();
  } catch (err) {
    if (err instanceof FieldProblem) return { field: err.field, message: err.message };
    throw err;
  }
  throw new Error('no problem reported');
}

describe('server fields', () => {
  it('name: 1 to 80 characters, trimmed, no control characters', () => {
    expect(checkName('  Weather  ')).toBe('Weather');
    expect(problem(() => checkName('   '))).toEqual({ field: 'name', message: 'Give the server a name.' });
    expect(problem(() => checkName('x'.repeat(81))).message).toMatch(/at most 80 characters \(got 81\)/);
    expect(problem(() => checkName('a\nb')).message).toMatch(/control characters/);
    expect(problem(() => checkName(5)).field).toBe('name');
  });

  it('url: https only; loopback only when allowed; the reason is given', () => {
    expect(checkUrl('https://mcp.example.test/mcp', { allowLoopback: false })).toBe('https://mcp.example.test/mcp');
    expect(problem(() => checkUrl('http://mcp.example.test/', { allowLoopback: false })).message).toMatch(/only https is allowed/);
    expect(problem(() => checkUrl('https://127.0.0.1/', { allowLoopback: false })).message).toMatch(/loopback/);
    expect(problem(() => checkUrl('https://169.254.169.254/', { allowLoopback: true })).message).toMatch(/link-local/);
    expect(checkUrl('http://127.0.0.1:3411/mcp', { allowLoopback: true })).toBe('http://127.0.0.1:3411/mcp');
    expect(problem(() => checkUrl('not a url', { allowLoopback: false })).message).toMatch(/not a valid URL/);
    expect(problem(() => checkUrl('https://u:p@x.example.test/', { allowLoopback: false })).message).toMatch(/user name or password/);
    expect(problem(() => checkUrl('', { allowLoopback: false })).field).toBe('url');
  });

  it('namespace: the naming rules, and never a built-in one', () => {
    expect(checkNamespace('my-tools')).toBe('my-tools');
    expect(problem(() => checkNamespace('notes')).message).toMatch(/built-in server Notes/);
    expect(problem(() => checkNamespace('sandbox')).message).toMatch(/built-in/);
    expect(problem(() => checkNamespace('switchboard')).message).toMatch(/reserved/);
    expect(problem(() => checkNamespace('a__b')).message).toMatch(/no "__"/);
    expect(problem(() => checkNamespace('Upper')).field).toBe('namespace');
  });

  it('derives a namespace from the name, avoiding built-ins and taken ones', () => {
    const none = () => false;
    expect(namespaceFromName('GitHub Issues!', none)).toBe('github-issues');
    expect(namespaceFromName('Notes', none)).toBe('notes-2');
    expect(namespaceFromName('Café Crème', none)).toBe('cafe-creme');
    expect(namespaceFromName('***', none)).toBe('server');
    const taken = new Set(['weather', 'weather-2']);
    expect(namespaceFromName('Weather', (n) => taken.has(n))).toBe('weather-3');
    expect(namespaceFromName('x'.repeat(80), none)).toHaveLength(32);
  });

  it('headers: RFC 7230 names, no transport or protocol headers, values without line breaks', () => {
    expect(checkHeaders({ 'X-Api-Key': ' k ', Authorization: 'Bearer t' })).toEqual({ 'X-Api-Key': 'k', Authorization: 'Bearer t' });
    for (const name of ['Host', 'content-length', 'Transfer-Encoding', 'Connection', 'Mcp-Session-Id', 'Proxy-Authorization']) {
      expect(headerNameProblem(name)).toMatch(/set by Switchboard itself/);
    }
    expect(problem(() => checkHeaders({ 'Bad Name': 'x' }))).toMatchObject({ field: 'headers.Bad Name' });
    expect(problem(() => checkHeaders({ 'X-A': 'a\r\nInjected: 1' })).message).toMatch(/line breaks/);
    expect(problem(() => checkHeaders({ 'X-A': 'a', 'x-a': 'b' })).message).toMatch(/given twice/);
    expect(problem(() => checkHeaders({ 'X-A': 5 })).message).toMatch(/must be text/);
    expect(problem(() => checkHeaders({ 'X-A': null })).message).toMatch(/no stored value to keep/);
    expect(checkHeaders({ 'X-A': null }, new Set(['x-a']))).toEqual({ 'X-A': null });
    expect(problem(() => checkHeaders(['x'])).field).toBe('headers');
  });

  it('timeout, trust, OAuth client and unknown fields', () => {
    expect(checkTimeout(1000)).toBe(1000);
    expect(checkTimeout(300_000)).toBe(300_000);
    expect(problem(() => checkTimeout(999)).message).toMatch(/from 1000 to 300000 \(got 999\)/);
    expect(problem(() => checkTimeout(1500.5)).field).toBe('timeoutMs');
    expect(checkTrust('trusted')).toBe('trusted');
    expect(problem(() => checkTrust('maybe')).message).toMatch(/"trusted", "untrusted"/);
    expect(checkTrustContent(true)).toBe(true);
    expect(checkTrustContent(false)).toBe(false);
    for (const bad of ['true', 1, null]) {
      expect(problem(() => checkTrustContent(bad))).toMatchObject({
        field: 'trustContent',
        message: expect.stringMatching(/true or false/),
      });
    }
    expect(() => checkBody({ trustContent: true }, 'add')).not.toThrow();
    expect(checkOAuthClient({ clientId: 'abc', clientSecret: 's' })).toEqual({ clientId: 'abc', clientSecret: 's' });
    expect(checkOAuthClient(null)).toBeNull();
    expect(problem(() => checkOAuthClient({ clientId: '' })).field).toBe('oauthClient.clientId');
    expect(problem(() => checkOAuthClient({ clientId: 'a', extra: 1 })).field).toBe('oauthClient.extra');
    expect(problem(() => checkBody({ nmae: 'x' }, 'add'))).toMatchObject({
      field: 'nmae',
      message: expect.stringMatching(/Unknown field/),
    });
    expect(() => checkBody({ enabled: false }, 'edit')).not.toThrow();
  });
});
