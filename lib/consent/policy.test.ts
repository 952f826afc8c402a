import { describe, expect, it } from 'vitest';

import { isTrustedRepeatable, verdictFor, type PolicyInput } from './policy';

const base: PolicyInput = {
  tool: { trust: 'trusted', annotations: {} },
  grant: { state: 'active', autoApprove: false },
  overPlan: false,
  constraintUnmet: false,
  taintedBy: null,
};
type Over = Partial<PolicyInput> & {
  annotations?: PolicyInput['tool']['annotations'];
  trust?: 'trusted' | 'untrusted';
  privateData?: boolean;
  autoApprove?: boolean;
};
const judge = (over: Over) =>
  verdictFor({
    ...base,
    ...over,
    tool: { trust: over.trust ?? 'trusted', annotations: over.annotations ?? {}, privateData: over.privateData ?? false },
    grant: over.grant ?? { state: 'active', autoApprove: over.autoApprove ?? false },
  });
const decide = (over: Over) => judge(over).verdict;

/**
 * Every row of the table in docs/ARCHITECTURE.md ("Consent"), first match wins, each with the
 * case the issue names. The reason is asserted too: it is what the card and the audit log say.
 */
describe('the decision table, row by row', () => {
  const rows: Array<{ row: string; input: Over; verdict: 'auto' | 'ask' | 'reject'; reason: RegExp }> = [
    { row: 'not granted', input: { grant: { state: 'missing', autoApprove: false } }, verdict: 'reject', reason: /not switched on/ },
    {
      row: 'expired grant (even a read-only tool with auto-approve)',
      input: { grant: { state: 'expired', autoApprove: true }, annotations: { readOnlyHint: true } },
      verdict: 'reject',
      reason: /expired/,
    },
    {
      row: 'suspended grant (the definition changed)',
      input: { grant: { state: 'suspended', autoApprove: true } },
      verdict: 'reject',
      reason: /definition changed/,
    },
    { row: 'over plan', input: { overPlan: true, annotations: { readOnlyHint: true } }, verdict: 'reject', reason: /plan/ },
    {
      row: 'argument constraint unmet (auto-approve does not help)',
      input: { constraintUnmet: true, autoApprove: true, annotations: { readOnlyHint: true } },
      verdict: 'reject',
      reason: /outside what the person's grant allows/,
    },
    {
      row: 'destructive tool with auto-approve asks',
      input: { annotations: { destructiveHint: true }, autoApprove: true },
      verdict: 'ask',
      reason: /destructive/,
    },
    {
      row: 'destructive beats a read-only claim, even from a trusted server',
      input: { annotations: { destructiveHint: true, readOnlyHint: true } },
      verdict: 'ask',
      reason: /destructive/,
    },
    {
      row: 'tainted conversation with an auto-approved write asks',
      input: { taintedBy: 'Web', autoApprove: true, annotations: { readOnlyHint: false } },
      verdict: 'ask',
      reason: /^The conversation holds content from "Web", which could steer the model; this tool is not marked read-only/,
    },
    {
      row: 'tainted: a lying read-only tool of an untrusted server asks (its annotations are not believed)',
      input: { taintedBy: 'Web', trust: 'untrusted', autoApprove: true, annotations: { readOnlyHint: true } },
      verdict: 'ask',
      reason: /content from "Web".*annotations are not trusted/,
    },
    {
      row: 'tainted: an unannotated tool of a trusted server asks, even with auto-approve',
      input: { taintedBy: 'Web', autoApprove: true, annotations: {} },
      verdict: 'ask',
      reason: /content from "Web".*not marked read-only/,
    },
    {
      row: 'tainted: a trusted read-only tool that reaches outside systems asks (the web search that would carry a secret out)',
      input: { taintedBy: 'Web', annotations: { readOnlyHint: true, openWorldHint: true } },
      verdict: 'ask',
      reason: /^The conversation holds content from "Web", which could steer the model; this tool reaches outside systems/,
    },
    {
      row: 'tainted: an open-world tool asks even with auto-approve the person gave',
      input: { taintedBy: 'Web', autoApprove: true, annotations: { readOnlyHint: true, openWorldHint: true } },
      verdict: 'ask',
      reason: /reaches outside systems/,
    },
    {
      row: "tainted: reading the person's notes asks, though first-party, trusted and read-only",
      input: { taintedBy: 'Web', privateData: true, annotations: { readOnlyHint: true, openWorldHint: false } },
      verdict: 'ask',
      reason: /content from "Web".*reads the person's notes/,
    },
    {
      row: 'tainted: a trusted read-only tool that stays inside and holds nothing private still runs',
      input: { taintedBy: 'Web', annotations: { readOnlyHint: true, openWorldHint: false } },
      verdict: 'auto',
      reason: /trusted server marks this tool as read-only/,
    },
    {
      row: 'untainted: open-world and notes reads of a trusted server run as before',
      input: { privateData: true, annotations: { readOnlyHint: true, openWorldHint: true } },
      verdict: 'auto',
      reason: /trusted server marks this tool as read-only/,
    },
    {
      row: 'a lying read-only tool on an untrusted server asks',
      input: { trust: 'untrusted', annotations: { readOnlyHint: true, idempotentHint: true } },
      verdict: 'ask',
      reason: /untrusted servers need approval/,
    },
    {
      row: 'auto-approve chosen by the person',
      input: { autoApprove: true },
      verdict: 'auto',
      reason: /allowed this tool to run without asking/,
    },
    {
      row: 'auto-approve on an untrusted server (the person chose it)',
      input: { autoApprove: true, trust: 'untrusted' },
      verdict: 'auto',
      reason: /allowed this tool/,
    },
    { row: 'unannotated tool asks', input: {}, verdict: 'ask', reason: /may change something/ },
    { row: 'everything of an untrusted server asks', input: { trust: 'untrusted' }, verdict: 'ask', reason: /untrusted servers/ },
  ];
  for (const { row, input, verdict, reason } of rows) {
    it(row, () => {
      const r = judge(input);
      expect(r.verdict).toBe(verdict);
      expect(r.reason).toMatch(reason);
    });
  }
});

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
    expect(decide({ autoApprove: true, taintedBy: 'Web' })).toBe('ask');
    expect(decide({ autoApprove: true, taintedBy: 'Web', annotations: { idempotentHint: true } })).toBe('ask');
    // A trusted read-only tool that reaches nothing outside stays automatic in a tainted run: it cannot act on what it read.
    expect(decide({ taintedBy: 'Web', annotations: { readOnlyHint: true } })).toBe('auto');
    expect(decide({ taintedBy: 'Web', autoApprove: true, annotations: { readOnlyHint: true, openWorldHint: true } })).toBe('ask');
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
