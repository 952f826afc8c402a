import { inputProblem } from '@/lib/mcp/schema-guard';

import { pathPrefixProblem } from './constraints';

/**
 * Why a call's input does not meet a grant's constraint, in one sentence, or null when it does
 * (or there is none). Every place that holds an input against a grant asks this: the proposal,
 * the edited input of a decision, the call after a sign-in and the re-check before it runs.
 * A path prefix is judged on the value as a server would read it first (`pathPrefixProblem`),
 * then the fragment itself by the schema guard.
 */
export function constraintUnmetBy(constraint: Record<string, unknown> | null | undefined, input: unknown): string | null {
  if (!constraint) return null;
  return pathPrefixProblem(constraint, input) ?? inputProblem(constraint, input);
}
