// Public entry of the model layer: pick a model, build its SDK client, and
// explain its failures. Hosts import from here; demo internals stay private.

export { createModelClient, DEFAULT_MODEL, DEMO_MODEL_LABEL, getModelConfig, type Env, type ModelConfig } from './client';
export { describeModelError, type ModelErrorCode, type ModelErrorDescription } from './errors';
export { createDemoFetch } from './demo';
