import type Anthropic from '@anthropic-ai/sdk';
import { APIError } from '@anthropic-ai/sdk';

import { describeModelError } from './errors';
import { modelLimits, type ListedLimits } from './limits';
import { listedThinkingKind, thinkingKind, type ThinkingKind } from './thinking-kind';

// The models a person can choose for a conversation: what the models endpoint lists for the
// configured key (every page, retired models left out), cached per process. A listing that fails
// is cached briefly too and offers the configured model alone, so the app keeps working and the
// failure is said. The engine reads the listed limits synchronously from the same cache.

type Env = Record<string, string | undefined>;

/** One model as the page and the engine see it; the limits already resolved (./limits.ts). */
export interface ListedModel {
  id: string;
  /** What the picker shows: the endpoint's display name, else the id. */
  label: string;
  contextWindow: number;
  maxOutputTokens: number;
  /** How it thinks: from its listed capabilities, else the table of known ids (./thinking-kind.ts). */
  thinking: ThinkingKind;
}

export interface ModelListing {
  models: ListedModel[];
  /** The configured model (ANTHROPIC_MODEL, or `demo`): a new conversation's model. Always among `models`. */
  default: string;
  /** Why the endpoint could not be listed (then only the default is offered); null when it was. */
  error: string | null;
}

export interface ModelCatalog {
  /** The listing, from the cache while it is fresh; never throws. */
  list(): Promise<ModelListing>;
  /**
   * What the endpoint reported for `model`, from the last good listing (null when it was not
   * listed or nothing was listed yet); a stale cache is refreshed in the background.
   */
  listedLimits(model: string): ListedLimits | null;
}

export const MODEL_LIST_TTL_MS = 10 * 60_000;
/** A failed listing is tried again after this long, not at every request. */
export const MODEL_LIST_FAILURE_TTL_MS = 30_000;
/** Each page request; the picker must not hang on a slow endpoint (the SDK's own default is 10 minutes). */
const PAGE_TIMEOUT_MS = 10_000;
/** A gateway that always says `has_more` must not keep the listing going forever. */
const MAX_MODELS = 1000;

export interface ModelCatalogOptions {
  client: Anthropic;
  /** The configured model and what the UI calls it (getModelConfig). */
  defaultModel: { id: string; label: string };
  ttlMs?: number;
  failureTtlMs?: number;
  now?: () => number;
  /** For MODEL_LIMITS (./limits.ts). */
  env?: Env;
}

interface Listed {
  info: Pick<Anthropic.ModelInfo, 'id' | 'display_name' | 'max_input_tokens' | 'max_tokens'> & {
    // Optional: an older endpoint or a gateway may not send it at all.
    capabilities?: Anthropic.ModelCapabilities | null;
  };
}

interface CacheEntry {
  listing: ModelListing;
  /** What the endpoint said per model id (empty after a failure). */
  reported: Map<string, ListedLimits>;
  expiresAt: number;
}

export function createModelCatalog(opts: ModelCatalogOptions): ModelCatalog {
  const ttlMs = opts.ttlMs ?? MODEL_LIST_TTL_MS;
  const failureTtlMs = opts.failureTtlMs ?? MODEL_LIST_FAILURE_TTL_MS;
  const now = opts.now ?? Date.now;
  let entry: CacheEntry | null = null;
  /** The last listing that worked: its figures keep serving the engine while a refresh fails. */
  let lastGood: Map<string, ListedLimits> | null = null;
  let inflight: Promise<ModelListing> | null = null;

  async function refresh(): Promise<ModelListing> {
    try {
      const listed = await listAll(opts.client);
      const reported = new Map(
        listed.map(({ info }): [string, ListedLimits] => [
          info.id,
          { contextWindow: info.max_input_tokens, maxOutputTokens: info.max_tokens, thinking: listedThinkingKind(info.capabilities) },
        ]),
      );
      const models = listed.map(({ info }) => toListedModel(info.id, info.display_name || info.id, reported.get(info.id)!, opts.env));
      // The configured model is always offered, listed or not (an alias such as `claude-sonnet-4-5`
      // is not an id the endpoint lists; a gateway may list nothing).
      if (!reported.has(opts.defaultModel.id)) models.unshift(toListedModel(opts.defaultModel.id, opts.defaultModel.label, null, opts.env));
      entry = { listing: { models, default: opts.defaultModel.id, error: null }, reported, expiresAt: now() + ttlMs };
      lastGood = reported;
    } catch (err) {
      if (hasNoListing(err)) {
        // Not a failure: this endpoint (a gateway, a proxy of the Messages API alone) has no models
        // listing. The configured model is offered, nothing is said, and it is not asked again soon.
        const models = [toListedModel(opts.defaultModel.id, opts.defaultModel.label, null, opts.env)];
        entry = { listing: { models, default: opts.defaultModel.id, error: null }, reported: new Map(), expiresAt: now() + ttlMs };
        return entry.listing;
      }
      const why = describeModelError(err, { baseURL: opts.client.baseURL }).message;
      const error = `Could not list the models, so only ${opts.defaultModel.id} is offered. ${why}`;
      const models = [toListedModel(opts.defaultModel.id, opts.defaultModel.label, lastGood?.get(opts.defaultModel.id) ?? null, opts.env)];
      entry = { listing: { models, default: opts.defaultModel.id, error }, reported: new Map(), expiresAt: now() + failureTtlMs };
    }
    return entry.listing;
  }

  function list(): Promise<ModelListing> {
    if (entry && entry.expiresAt > now()) return Promise.resolve(entry.listing);
    // Callers at the same moment share one listing.
    inflight ??= refresh().finally(() => (inflight = null));
    return inflight;
  }

  return {
    list,
    listedLimits(model) {
      if (!entry || entry.expiresAt <= now()) void list();
      return lastGood?.get(model) ?? null;
    },
  };
}

/** Every page of the endpoint, retired models left out (the default listing has active and deprecated ones). */
async function listAll(client: Anthropic): Promise<Listed[]> {
  const out: Listed[] = [];
  for await (const info of client.models.list({ limit: 100 }, { timeout: PAGE_TIMEOUT_MS, maxRetries: 0 })) {
    if (info.lifecycle !== 'retired' && typeof info.id === 'string' && info.id) out.push({ info });
    if (out.length >= MAX_MODELS) break;
  }
  return out;
}

/** The endpoint answered that it has no `GET /v1/models` at all (404 or 405), as opposed to failing. */
function hasNoListing(err: unknown): boolean {
  return err instanceof APIError && (err.status === 404 || err.status === 405);
}

function toListedModel(id: string, label: string, reported: ListedLimits | null, env: Env | undefined): ListedModel {
  return { id, label, ...modelLimits(id, reported, env), thinking: thinkingKind(id, reported?.thinking) };
}

/** Whether `id` may be chosen, and the sentence that says what may when it may not. */
export function modelChoiceProblem(listing: ModelListing, id: string): string | null {
  if (listing.models.some((m) => m.id === id)) return null;
  const allowed = listing.models.map((m) => `"${m.id}"`).join(', ');
  return `"${id}" is not a model this server offers; choose one of ${allowed}.`;
}
