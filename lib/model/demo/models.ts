import { KNOWN_MODEL_LIMITS } from '../limits';

// `GET /v1/models` of the demo model: one model, `demo`, with the window and output limit the
// limits table gives it, in the endpoint's page shape (`data`, `has_more`, `first_id`, `last_id`),
// so the app's model listing runs its real SDK path offline.

export const DEMO_MODEL_ID = 'demo';
/** The same words as DEMO_MODEL_LABEL (../client.ts), which the UI shows when nothing is listed. */
export const DEMO_DISPLAY_NAME = 'Demo model (offline)';

export function demoModelsPage(): Record<string, unknown> {
  const limits = KNOWN_MODEL_LIMITS[DEMO_MODEL_ID]!;
  const model = {
    type: 'model',
    id: DEMO_MODEL_ID,
    display_name: DEMO_DISPLAY_NAME,
    created_at: '2025-01-01T00:00:00Z',
    lifecycle: 'active',
    deprecated_at: null,
    retires_at: null,
    line: null,
    capabilities: null,
    max_input_tokens: limits.contextWindow,
    max_tokens: limits.maxOutputTokens,
  };
  return { data: [model], has_more: false, first_id: model.id, last_id: model.id };
}
