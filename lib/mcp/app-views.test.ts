import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';

import { toolViewOf, viewContentHash, viewCsp, viewDomainsOf } from './app-views';
import { buildServerCatalog } from './catalog';
import type { McpServerConfig } from './types';

const server: McpServerConfig = {
  id: 's1',
  namespace: 'apps',
  displayName: 'Apps',
  url: 'https://apps.example/mcp',
  trust: 'untrusted',
  timeoutMs: 5000,
};
const tool = (meta?: unknown) => ({ name: 'show', inputSchema: { type: 'object' }, ...(meta !== undefined && { _meta: meta }) });

describe('a tool’s interactive view (MCP Apps)', () => {
  it('reads _meta.ui.resourceUri, the older _meta["ui/resourceUri"], and who may call the tool', () => {
    expect(toolViewOf({ ui: { resourceUri: 'ui://a/view.html' } })).toEqual({ resourceUri: 'ui://a/view.html', modelVisible: true });
    expect(toolViewOf({ 'ui/resourceUri': 'ui://a/old.html' })).toEqual({ resourceUri: 'ui://a/old.html', modelVisible: true });
    expect(toolViewOf({ ui: { resourceUri: 'ui://a/v', visibility: ['app'] } })).toEqual({ resourceUri: 'ui://a/v', modelVisible: false });
    expect(toolViewOf({ ui: { resourceUri: 'ui://a/v', visibility: ['model', 'app'] } })?.modelVisible).toBe(true);
    // For the model only: its views may not call it (said only then, so other fingerprints stay as they were).
    expect(toolViewOf({ ui: { resourceUri: 'ui://a/v', visibility: ['model'] } })).toEqual({
      resourceUri: 'ui://a/v',
      modelVisible: true,
      appCallable: false,
    });
  });

  it('counts a malformed declaration as no view', () => {
    expect(toolViewOf(undefined)).toBeUndefined();
    expect(toolViewOf({ ui: { resourceUri: 'https://evil.example/page.html' } })).toBeUndefined();
    expect(toolViewOf({ ui: { resourceUri: 42 } })).toBeUndefined();
    expect(toolViewOf({ ui: { resourceUri: `ui://${'a'.repeat(3000)}` } })).toBeUndefined();
  });

  it('puts the view in the fingerprint only when there is one: a changed view is a change to review', () => {
    const fingerprint = (meta?: unknown) => buildServerCatalog(server, [tool(meta)]).tools[0]!.fingerprint;
    expect(buildServerCatalog(server, [tool({ ui: { resourceUri: 'ui://a/1' } })]).tools[0]!.view).toEqual({
      resourceUri: 'ui://a/1',
      modelVisible: true,
    });
    // Other _meta does not count, so tools without a view keep the fingerprint earlier releases stored.
    expect(fingerprint({ other: true })).toBe(fingerprint());
    expect(fingerprint({ ui: { resourceUri: 'ui://a/1' } })).not.toBe(fingerprint());
    expect(fingerprint({ ui: { resourceUri: 'ui://a/1' } })).not.toBe(fingerprint({ ui: { resourceUri: 'ui://a/2' } }));
    expect(fingerprint({ ui: { resourceUri: 'ui://a/1' } })).not.toBe(
      fingerprint({ ui: { resourceUri: 'ui://a/1', visibility: ['app'] } }),
    );
  });
});

describe('the CSP a view runs under', () => {
  it('by default: scripts only, no network, an opaque origin, framed only by our pages', () => {
    expect(viewCsp({ connect: [], resource: [], frame: [] })).toBe(
      "sandbox allow-scripts; default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; " +
        "connect-src 'none'; frame-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'self'",
    );
  });

  it('adds the declared origins where the spec maps them', () => {
    const csp = viewCsp({ connect: ['https://api.example.com'], resource: ['https://*.cdn.example'], frame: [] });
    expect(csp).toContain("script-src 'unsafe-inline' https://*.cdn.example");
    expect(csp).toContain('img-src data: https://*.cdn.example');
    expect(csp).toContain('font-src https://*.cdn.example');
    expect(csp).toContain('connect-src https://api.example.com');
  });

  it('keeps only plain origins of what a server declares: no keyword, wildcard, path or new directive', () => {
    const declared = [
      "'unsafe-eval'",
      '*',
      'https://ok.example',
      'https://x.example/path',
      'https://a.example; script-src *',
      'http://plain.example',
      'wss://live.example:8443',
    ];
    expect(viewDomainsOf({ ui: { csp: { connectDomains: declared, resourceDomains: 'https://not-a-list.example' } } })).toEqual({
      connect: ['https://ok.example', 'wss://live.example:8443'],
      resource: [],
      frame: [],
    });
    expect(viewDomainsOf(undefined)).toEqual({ connect: [], resource: [], frame: [] });
  });

  it('honours declared frameDomains in frame-src (https origins only), none by default; they are part of the reviewed hash', () => {
    const declared = ['https://www.youtube.com', 'wss://live.example', "'self'", 'https://x.example/embed', 'https://player.vimeo.com'];
    const domains = viewDomainsOf({ ui: { csp: { frameDomains: declared } } });
    expect(domains.frame).toEqual(['https://www.youtube.com', 'https://player.vimeo.com']);
    expect(viewCsp(domains)).toContain('frame-src https://www.youtube.com https://player.vimeo.com;');
    expect(viewCsp(viewDomainsOf({ ui: { csp: {} } }))).toContain("frame-src 'none';");
    // Declaring a frame origin changes what the person reviewed; declaring none keeps the earlier hash.
    const html = '<p>view</p>';
    const none = viewContentHash({ html, domains: viewDomainsOf(undefined) });
    expect(none).toBe(
      `sha256:${createHash('sha256')
        .update(JSON.stringify({ html, connect: [], resource: [] }))
        .digest('hex')}`,
    );
    expect(viewContentHash({ html, domains })).not.toBe(none);
  });
});
