import { describe, expect, it } from 'vitest';

import { isTrustedRepeatable, verdictFor, type PolicyInput } from './policy';

const base: PolicyInput = {
  tool: { trust: 'trusted', annotations: {} },
  grant: { state: 'active', autoApprove: false },
  overPlan: false,
  constraintUnmet: false,
  runTainted: false,
};
const decide = (
  over: Partial<PolicyInput> & { annotations?: PolicyInput['tool']['annotations']; trust?: 'trusted' | 'untrusted'; autoApprove?: boolean },
) =>
  verdictFor({
    ...base,
    ...over,
    tool: { trust: over.trust ?? 'trusted', annotations: over.annotations ?? {} },
    grant: over.grant ?? { state: 'active', autoApprove: over.autoApprove ?? false },
  }).verdict;

describe('verdictFor', () => {
  it('rejects what is not granted, expired, suspended, over plan or outside the constraint', () => {
    for (const state of ['missing', 'expired', 'suspended'] as const) {
      expect(decide({ grant: { state, autoApprove: true }, annotations: { readOnlyHint: true } })).toBe('reject');
    }
    expect(decide({ overPlan: true, annotations: { readOnlyHint: true } })).toBe('reject');
    expect(decide({ constraintUnmet: true, autoApprove: true })).toBe('reject');
  });

  it('asks every time for a destructive tool, from any server, even with auto-approve or a read-only claim', () => {
    expect(decide({ annotations: { destructiveHint: true }, autoApprove: true })).toBe('ask');
    expect(decide({ annotations: { destructiveHint: true, readOnlyHint: true } })).toBe('ask');
    expect(decide({ annotations: { destructiveHint: true }, trust: 'untrusted', autoApprove: true })).toBe('ask');
  });

  it('runs read-only tools of trusted servers without asking, but not an untrusted server claiming it', () => {
    expect(decide({ annotations: { readOnlyHint: true } })).toBe('auto');
    expect(decide({ annotations: { readOnlyHint: true }, trust: 'untrusted' })).toBe('ask');
  });

  it('honors auto-approve for non-destructive tools, unless the run is tainted', () => {
    expect(decide({ autoApprove: true })).toBe('auto');
    expect(decide({ autoApprove: true, trust: 'untrusted' })).toBe('auto');
    expect(decide({ autoApprove: true, runTainted: true })).toBe('ask');
    expect(decide({ autoApprove: true, runTainted: true, annotations: { idempotentHint: true } })).toBe('ask');
    // A trusted read-only tool stays automatic in a tainted run: it cannot act on what it read.
    expect(decide({ runTainted: true, annotations: { readOnlyHint: true } })).toBe('auto');
  });

  it('asks for everything else', () => {
    expect(decide({})).toBe('ask');
    expect(decide({ trust: 'untrusted' })).toBe('ask');
    expect(decide({ annotations: { idempotentHint: true } })).toBe('ask');
  });

  it('warns when a tool reaches outside systems, whatever the verdict', () => {
    const r = verdictFor({ ...base, tool: { trust: 'trusted', annotations: { readOnlyHint: true, openWorldHint: true } } });
    expect(r.verdict).toBe('auto');
    expect(r.warnings).toEqual(['This tool reaches outside systems.']);
  });
});

describe('isTrustedRepeatable', () => {
  it('believes read-only and idempotent hints only from trusted servers', () => {
    expect(isTrustedRepeatable({ trust: 'trusted', annotations: { idempotentHint: true } })).toBe(true);
    expect(isTrustedRepeatable({ trust: 'trusted', annotations: { readOnlyHint: true } })).toBe(true);
    expect(isTrustedRepeatable({ trust: 'untrusted', annotations: { readOnlyHint: true, idempotentHint: true } })).toBe(false);
    expect(isTrustedRepeatable({ trust: 'trusted', annotations: {} })).toBe(false);
    expect(isTrustedRepeatable({ trust: 'trusted', annotations: { idempotentHint: true, destructiveHint: true } })).toBe(false);
  });
});
