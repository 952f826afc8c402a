import { z } from 'zod';

import { jsonObject } from './common';
import { storedAnnotations } from './tool-calls';

/**
 * The JSON columns of tool_grants: what a grant was given for, and its constraints. See db/stored-
 * json.ts for the rules every shape follows.
 */

// ── tool_grants.covered: what a grant was given for ──────────────────────────────────────
/** A tool's definition as the person saw it when they granted it: the panel diffs it against today's. */
const grantedToolV1 = z.object({
  fingerprint: z.string(),
  title: z.string().nullable(),
  description: z.string().nullable(),
  inputSchema: jsonObject,
  outputSchema: jsonObject.nullable(),
  annotations: storedAnnotations,
  serverUrl: z.string(),
});
export type GrantedTool = z.infer<typeof grantedToolV1>;
/**
 * Tool name → its definition when granted. A tool-scope grant covers one tool; a server-wide
 * grant the tools the server had then (a tool added later is not in it, so not covered).
 */
const grantCoverageV1 = z.object({ v: z.literal(1), tools: z.record(z.string(), grantedToolV1) });
export type StoredGrantCoverage = z.infer<typeof grantCoverageV1>;
export const storedGrantCoverage = grantCoverageV1;

/** A grant's argument constraint: a JSON Schema fragment the input must also satisfy. */
export const storedConstraint = jsonObject;
export type StoredConstraint = z.infer<typeof storedConstraint>;
