import { afterEach, describe, expect, it } from 'vitest';

import { startScriptedModel, type ScriptedModelInfo } from '@/test/fixtures/scripted-model';

import { createModelClient, DEMO_MODEL_LABEL } from './client';
import { KNOWN_MODEL_LIMITS } from './limits';
import { createModelCatalog, MODEL_LIST_FAILURE_TTL_MS, MODEL_LIST_TTL_MS, modelChoiceProblem } from './models';

// The model listing over the real SDK: against the demo model's fetch and a scripted
// Anthropic-compatible server on 127.0.0.1 that pages its listing as the endpoint does.

const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function scripted(options: Parameters<typeof startScriptedModel>[1]) {
  const model = await startScriptedModel([], options);
  servers.push(model);
  return model;
}

/** A clock the test moves. */
function clock() {
  let t = 1_000_000;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe('the model listing', () => {
  it('lists the demo model with its limits, offline', async () => {
    const catalog = createModelCatalog({
      client: createModelClient({ DEMO_MODEL_DELAY_MS: '0' }),
      defaultModel: { id: 'demo', label: DEMO_MODEL_LABEL },
    });
    expect(await catalog.list()).toEqual({
      models: [{ id: 'demo', label: DEMO_MODEL_LABEL, ...KNOWN_MODEL_LIMITS.demo, thinking: 'budget' }],
      default: 'demo',
      error: null,
    });
    expect(catalog.listedLimits('demo')).toEqual({ contextWindow: 200_000, maxOutputTokens: 64_000, thinking: null });
  });

  it('reads every page, leaves retired models out, and offers the configured model even when it is not listed', async () => {
    const many: ScriptedModelInfo[] = Array.from({ length: 130 }, (_, i) => ({ id: `gw-model-${i}` }));
    const models: ScriptedModelInfo[] = [
      { id: 'claude-big-1', display_name: 'Claude Big', max_input_tokens: 1_000_000, max_tokens: 128_000 },
      { id: 'claude-old-1', display_name: 'Claude Old', lifecycle: 'retired' },
      { id: 'claude-sonnet-4-5-20250929', display_name: 'Claude Sonnet 4.5', lifecycle: 'deprecated' },
      ...many,
    ];
    const server = await scripted({ models });
    const catalog = createModelCatalog({ client: server.client, defaultModel: { id: 'claude-alias', label: 'claude-alias' }, env: {} });
    const listing = await catalog.list();
    // Two pages of at most 100: the second after the first page's last id.
    expect(server.modelListings.map((q) => [q.get('limit'), q.get('after_id')])).toEqual([
      ['100', null],
      ['100', 'gw-model-96'],
    ]);
    expect(listing.error).toBeNull();
    expect(listing.default).toBe('claude-alias');
    expect(listing.models).toHaveLength(1 + 2 + 130);
    expect(listing.models.map((m) => m.id)).not.toContain('claude-old-1');
    expect(listing.models.slice(0, 3)).toEqual([
      // Not listed (an alias): first, with the default limits.
      { id: 'claude-alias', label: 'claude-alias', contextWindow: 200_000, maxOutputTokens: 8_192, thinking: 'budget' },
      { id: 'claude-big-1', label: 'Claude Big', contextWindow: 1_000_000, maxOutputTokens: 128_000, thinking: 'budget' },
      // Listed without figures: the known table's.
      { id: 'claude-sonnet-4-5-20250929', label: 'Claude Sonnet 4.5', contextWindow: 200_000, maxOutputTokens: 64_000, thinking: 'budget' },
    ]);
    expect(catalog.listedLimits('claude-big-1')).toEqual({ contextWindow: 1_000_000, maxOutputTokens: 128_000, thinking: null });
    expect(catalog.listedLimits('claude-sonnet-4-5-20250929')).toEqual({ contextWindow: null, maxOutputTokens: null, thinking: null });
    expect(catalog.listedLimits('claude-alias')).toBeNull();
  });

  it('answers from its cache until the TTL passes, one listing for callers at the same moment', async () => {
    const server = await scripted({ models: [{ id: 'm-1' }] });
    const t = clock();
    const catalog = createModelCatalog({ client: server.client, defaultModel: { id: 'm-1', label: 'm-1' }, now: t.now });
    const [a, b] = await Promise.all([catalog.list(), catalog.list()]);
    expect(a).toBe(b);
    expect(server.modelListings).toHaveLength(1);
    t.advance(MODEL_LIST_TTL_MS - 1);
    await catalog.list();
    expect(server.modelListings).toHaveLength(1);
    t.advance(2);
    await catalog.list();
    expect(server.modelListings).toHaveLength(2);
  });

  it('after a failed listing offers the configured model alone, says why, and tries again only after a short while', async () => {
    const server = await scripted({ models: [{ id: 'm-1', max_tokens: 4_000 }, { id: 'm-2' }] });
    const failing = await scripted({ modelsStatus: 503 });
    const t = clock();
    const catalog = createModelCatalog({ client: failing.client, defaultModel: { id: 'm-1', label: 'Model one' }, now: t.now, env: {} });
    const listing = await catalog.list();
    expect(listing.models).toEqual([{ id: 'm-1', label: 'Model one', contextWindow: 200_000, maxOutputTokens: 8_192, thinking: 'budget' }]);
    expect(listing.error).toMatch(/^Could not list the models, so only m-1 is offered\. The model provider had a server error \(503\)/);
    await catalog.list();
    expect(failing.modelListings).toHaveLength(1);
    t.advance(MODEL_LIST_FAILURE_TTL_MS + 1);
    await catalog.list();
    expect(failing.modelListings).toHaveLength(2);

    // A good listing, then a failing one: the engine keeps the figures it had.
    const recovering = createModelCatalog({ client: server.client, defaultModel: { id: 'm-1', label: 'm-1' }, now: t.now, env: {} });
    await recovering.list();
    await server.close();
    servers.splice(servers.indexOf(server), 1);
    t.advance(MODEL_LIST_TTL_MS + 1);
    const after = await recovering.list();
    expect(after.error).toMatch(/Could not reach the model/);
    expect(after.models).toEqual([{ id: 'm-1', label: 'm-1', contextWindow: 200_000, maxOutputTokens: 4_000, thinking: 'budget' }]);
    expect(recovering.listedLimits('m-1')).toEqual({ contextWindow: null, maxOutputTokens: 4_000, thinking: null });
  });

  it('offers the configured model without a complaint where the endpoint has no models listing (404), not asked again soon', async () => {
    const gateway = await scripted({ modelsStatus: 404 });
    const t = clock();
    const catalog = createModelCatalog({ client: gateway.client, defaultModel: { id: 'm-1', label: 'Model one' }, now: t.now, env: {} });
    const listing = await catalog.list();
    expect(listing).toEqual({
      models: [{ id: 'm-1', label: 'Model one', contextWindow: 200_000, maxOutputTokens: 8_192, thinking: 'budget' }],
      default: 'm-1',
      error: null,
    });
    t.advance(MODEL_LIST_FAILURE_TTL_MS + 1);
    await catalog.list();
    expect(gateway.modelListings).toHaveLength(1);
    t.advance(MODEL_LIST_TTL_MS);
    await catalog.list();
    expect(gateway.modelListings).toHaveLength(2);
  });

  it('looks limits up synchronously: nothing before the first listing, which the lookup starts', async () => {
    const server = await scripted({ models: [{ id: 'm-1', max_input_tokens: 50_000 }] });
    const catalog = createModelCatalog({ client: server.client, defaultModel: { id: 'm-1', label: 'm-1' } });
    expect(catalog.listedLimits('m-1')).toBeNull();
    await expect.poll(() => catalog.listedLimits('m-1')).toEqual({ contextWindow: 50_000, maxOutputTokens: null, thinking: null });
    expect(server.modelListings).toHaveLength(1);
  });

  it('says which models may be chosen when one may not', async () => {
    const server = await scripted({ models: [{ id: 'm-1' }, { id: 'm-2' }] });
    const listing = await createModelCatalog({ client: server.client, defaultModel: { id: 'm-1', label: 'm-1' } }).list();
    expect(modelChoiceProblem(listing, 'm-2')).toBeNull();
    expect(modelChoiceProblem(listing, 'gpt-9')).toBe('"gpt-9" is not a model this server offers; choose one of "m-1", "m-2".');
  });
});
