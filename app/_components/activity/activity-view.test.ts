import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';

import { storedAuditContent, type StoredAuditToolCall } from '@/db/stored-json';
import { STORED_SAMPLES } from '@/db/stored-json.fixtures';

import { ActivityEntryCard } from './activity-entry-card';
import {
  activityPath,
  clientVerdictSentence,
  entryTitle,
  NO_FILTERS,
  verdictSentence,
  verifyNotice,
  type ActivityEntry,
} from './activity-view';

const [callSample, grantSample, clientSample] = STORED_SAMPLES.auditContent.v1.map((s) => storedAuditContent.parse(s));
if (callSample?.kind !== 'tool_call' || !grantSample || clientSample?.kind !== 'client_call') throw new Error('the audit samples changed');
const call: StoredAuditToolCall = callSample;

const entry = (content: ActivityEntry['content'] = call, seq = 7): ActivityEntry => ({
  id: `e${seq}`,
  seq,
  at: '2026-12-01T05:00:00.000Z',
  kind: content.kind,
  content,
  hmac: 'f'.repeat(64),
});

describe('activity view', () => {
  it('builds the API path from the filters set, the cursor and a followed tool call', () => {
    expect(activityPath(NO_FILTERS)).toBe('/api/activity');
    expect(activityPath({ ...NO_FILTERS, tool: ' search ', outcome: 'denied', from: '2026-11-01' }, { cursor: '40' })).toBe(
      '/api/activity?tool=search&outcome=denied&from=2026-11-01&cursor=40',
    );
    expect(activityPath(NO_FILTERS, { toolCall: 'c1' })).toBe('/api/activity?toolCall=c1');
  });

  it('says each verdict in words: default, auto with its rule, who allowed or denied, rejected why, undecided', () => {
    const v = (verdict: Partial<StoredAuditToolCall['verdict']>) => verdictSentence({ ...call, verdict: { ...call.verdict, ...verdict } });
    expect(v({})).toBe('On by default: a first-party tool that only reads.');
    expect(v({ kind: 'auto', rule: 'The person allowed this tool to run without asking in this session.' })).toMatch(
      /^Allowed automatically: The person/,
    );
    expect(v({ kind: 'allowed', decision: 'allow_session', rule: 'Tools of untrusted servers need approval.' })).toBe(
      'Allowed by you (for this session) — it asked because: Tools of untrusted servers need approval.',
    );
    expect(v({ kind: 'denied', decision: 'deny', reason: 'not today' })).toBe('Denied by you: “not today”');
    expect(v({ kind: 'rejected', rule: 'No tool by this name was offered.' })).toBe('Not run: No tool by this name was offered.');
    expect(v({ kind: 'undecided' })).toMatch(/turn ended first/);
    // A call an interactive view asked for says so before anything else.
    const fromView = { ...call, askedBy: { by: 'view' as const, toolCallId: 'c0' }, verdict: { ...call.verdict, kind: 'denied' as const } };
    expect(verdictSentence(fromView)).toBe('Asked by the interactive view, not the model. Denied by you.');
  });

  it('says what a verification found', () => {
    expect(verifyNotice({ ok: true, userId: 'u', checked: 3, firstSeq: 1, lastSeq: 3, prunedThroughSeq: 0 })).toMatchObject({
      tone: 'success',
      text: '3 entries checked: none was changed or removed.',
    });
    expect(
      verifyNotice({ ok: false, userId: 'u', checked: 1, seq: 2, problem: 'edited', message: 'Entry 2 was changed after it was written.' }),
    ).toEqual({
      tone: 'error',
      title: 'Your activity log was tampered with at entry 2',
      text: 'Entry 2 was changed after it was written.',
    });
  });

  it('renders a tool-call entry with its outcome, verdict, arguments (proposed and run when edited) and result digest', () => {
    const edited: StoredAuditToolCall = { ...call, arguments: { ...call.arguments, proposed: { query: 'all' }, edited: true } };
    const html = renderToStaticMarkup(createElement(ActivityEntryCard, { entry: entry(edited), highlighted: true }));
    expect(html).toContain('Notes · search');
    expect(html).toContain('Done');
    expect(html).toContain('On by default');
    expect(html).toContain('arguments edited');
    expect(html).toContain('Proposed by the model');
    expect(html).toContain('Run (edited by you)');
    expect(html).toContain(call.result!.sha256);
    expect(html).toContain('href="/c/11111111-2222-4333-8444-555555555555"');
    expect(html).toContain('aria-current="true"');
  });

  it('renders a grant entry with what changed and its scope', () => {
    const html = renderToStaticMarkup(createElement(ActivityEntryCard, { entry: entry(grantSample, 8) }));
    expect(html).toContain('Grant: GitHub · create_issue');
    expect(html).toContain('Switched on');
    expect(html).toContain('tool:8a6e0804-2bd0-4672-b79d-d97027f9071a/create_issue');
    expect(html).toContain('acme/web');
  });

  it("shows an MCP client's call: by which client, its verdict in words, the name it used", () => {
    expect(entryTitle(entry(clientSample))).toBe('Notes · search');
    expect(clientVerdictSentence(clientSample)).toBe('Allowed automatically: A trusted server marks this tool as read-only.');
    const undecided = { ...clientSample, verdict: { kind: 'undecided' as const, rule: 'This tool may change something.', warnings: [] } };
    expect(clientVerdictSentence(undecided)).toBe(
      'Not run: it needs your approval (This tool may change something.), which MCP clients cannot ask for yet.',
    );
    const html = renderToStaticMarkup(createElement(ActivityEntryCard, { entry: entry(clientSample) }));
    expect(html).toContain('by the MCP client “Claude Code”');
    expect(html).toContain('notes__search');
    expect(html).toContain('Done');
  });
});
