import { describe, expect, it } from 'vitest';

import {
  parseStored,
  sealedOAuthClient,
  sealedOAuthTokens,
  storedAnnotations,
  storedAuditContent,
  storedAuthServer,
  storedCatalog,
  storedConstraint,
  storedDecision,
  storedForkOrigin,
  storedFoundTools,
  storedGrantCoverage,
  storedInputRequests,
  storedInputResponses,
  storedMessageOrigin,
  storedNameMap,
  storedOAuthDiscovery,
  storedReviewedTools,
  storedRunError,
  StoredShapeError,
  storedSignIn,
  storedTaint,
  storedTask,
  storedThinking,
  storedTokenProfile,
  storedToolResult,
  storedUsage,
  storedVerdict,
} from './stored-json';
import { STORED_SAMPLES } from './stored-json.fixtures';

const SCHEMAS = {
  verdict: storedVerdict,
  decision: storedDecision,
  inputResponses: storedInputResponses,
  inputRequests: storedInputRequests,
  signIn: storedSignIn,
  task: storedTask,
  taint: storedTaint,
  forkOrigin: storedForkOrigin,
  messageOrigin: storedMessageOrigin,
  thinking: storedThinking,
  runError: storedRunError,
  usage: storedUsage,
  nameMap: storedNameMap,
  foundTools: storedFoundTools,
  annotations: storedAnnotations,
  result: storedToolResult,
  authServer: storedAuthServer,
  oauthDiscovery: storedOAuthDiscovery,
  oauthTokens: sealedOAuthTokens,
  oauthClient: sealedOAuthClient,
  reviewedTools: storedReviewedTools,
  catalog: storedCatalog,
  grantCoverage: storedGrantCoverage,
  constraint: storedConstraint,
  auditContent: storedAuditContent,
  tokenProfile: storedTokenProfile,
} as const;

describe('stored JSON shapes', () => {
  for (const [column, versions] of Object.entries(STORED_SAMPLES)) {
    for (const [version, samples] of Object.entries(versions)) {
      it(`${column} ${version} samples still parse`, () => {
        for (const sample of samples as readonly unknown[]) {
          expect(() => parseStored(SCHEMAS[column as keyof typeof SCHEMAS], sample, column, 'row-1')).not.toThrow();
        }
      });
    }
  }

  it('reads version-1 approvals as approvals from before titles counted in the fingerprint', () => {
    const [empty, one] = STORED_SAMPLES.reviewedTools.v1;
    expect(parseStored(storedReviewedTools, empty, 'reviewed_tools', 'r')).toEqual({ v: 2, tools: {} });
    expect(parseStored(storedReviewedTools, one, 'reviewed_tools', 'r')).toEqual({ v: 2, tools: {}, beforeTitles: one!.tools });
  });

  it('reads a version-0 verdict (stored as "decision") in today\'s shape', () => {
    expect(parseStored(storedVerdict, STORED_SAMPLES.verdict.v0[2], 'verdict', 'r')).toEqual({
      v: 1,
      verdict: 'reject',
      reason: 'No tool by this name was offered.',
      warnings: [],
      grantId: null,
      constraint: null,
    });
  });

  it('reads a version-0 decision: "auto" was the policy, not a person, and an edit keeps its original hash', () => {
    const [auto, , deny, edited] = STORED_SAMPLES.decision.v0;
    expect(parseStored(storedDecision, auto, 'decision', 'r')).toBeNull();
    expect(parseStored(storedDecision, deny, 'decision', 'r')).toMatchObject({ v: 1, kind: 'deny', reason: 'not now' });
    expect(parseStored(storedDecision, edited, 'decision', 'r')).toMatchObject({ v: 1, editedFrom: edited.originalArgsHash });
  });

  it('refuses a shape no version knows, naming the column, the row and the field', () => {
    expect(() => parseStored(storedVerdict, { verdict: 'maybe' }, 'tool_calls.verdict', 'row-9')).toThrow(StoredShapeError);
    expect(() => parseStored(storedVerdict, { v: 1, verdict: 'maybe' }, 'tool_calls.verdict', 'row-9')).toThrow(
      /tool_calls\.verdict of row row-9/,
    );
    expect(() => parseStored(storedToolResult, { type: 'text', text: 'x' }, 'tool_calls.result', 'row-9')).toThrow(/tool_result/);
  });

  it('keeps null as null', () => {
    expect(parseStored(storedDecision, null, 'decision', 'r')).toBeNull();
  });
});
