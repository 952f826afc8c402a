import type { StoredAuditClientCall, StoredAuditGrant, StoredAuditToolCall } from '@/db/stored-json';
import type { AuditGrantChange, AuditOutcome, AuditVerdict } from '@/db/vocabulary';
import type { ActivityEntry, ActivityPage } from '@/lib/audit/activity';
import type { VerifyResult } from '@/lib/audit/verify';
import { formatDuration } from '@/lib/chat/timeline';

import type { BadgeTone } from '../ui';

export type { ActivityEntry, ActivityPage, VerifyResult };

// Keyed by the vocabulary's unions: a new outcome, verdict or grant change does not compile until it has words here.
export const OUTCOME_BADGE: Record<AuditOutcome, { label: string; tone: BadgeTone }> = {
  succeeded: { label: 'Done', tone: 'success' },
  errored: { label: 'Failed', tone: 'danger' },
  timed_out: { label: 'Timed out', tone: 'danger' },
  unknown: { label: 'Outcome unknown', tone: 'danger' },
  cancelled: { label: 'Cancelled', tone: 'neutral' },
  denied: { label: 'Denied', tone: 'danger' },
  rejected: { label: 'Not run', tone: 'danger' },
};

export const VERDICT_LABEL: Record<AuditVerdict, string> = {
  default: 'On by default',
  auto: 'Allowed automatically',
  allowed: 'Allowed by you',
  denied: 'Denied by you',
  rejected: 'Refused by policy',
  undecided: 'Never decided',
};

export const GRANT_CHANGE_LABEL: Record<AuditGrantChange, string> = {
  created: 'Switched on',
  auto_approve_on: 'Runs without asking',
  auto_approve_off: 'Asks again',
  constraint: 'Limited to some arguments',
  expiry: 'Expiry changed',
  revoked: 'Revoked',
  switched_off: 'Switched off',
  switched_on: 'Switched back on',
  ended_at_sign_out: 'Ended at sign-out',
};

/** Everything a person can filter the log by; empty strings mean "any". */
export interface ActivityFilters {
  conversation: string;
  server: string;
  tool: string;
  outcome: '' | AuditOutcome;
  from: string;
  to: string;
}

export const NO_FILTERS: ActivityFilters = { conversation: '', server: '', tool: '', outcome: '', from: '', to: '' };

/** The API path for one page: the filters set, the cursor of the page before, one tool call when following a card's link. */
export function activityPath(f: ActivityFilters, opts: { cursor?: string | null; toolCall?: string | null } = {}): string {
  const q = new URLSearchParams();
  if (opts.toolCall) q.set('toolCall', opts.toolCall);
  for (const key of ['conversation', 'server', 'tool', 'outcome', 'from', 'to'] as const) {
    const value = f[key].trim();
    if (value) q.set(key, value);
  }
  if (opts.cursor) q.set('cursor', opts.cursor);
  const s = q.toString();
  return s ? `/api/activity?${s}` : '/api/activity';
}

export const EXPORT_HREF = '/api/activity?format=jsonl';

/** The verdict in a sentence: what allowed or stopped the call, and who. */
export function verdictSentence(c: StoredAuditToolCall): string {
  // A call the model did not make says so first: the person sees who asked before why it ran.
  return c.askedBy ? `Asked by the interactive view, not the model. ${ruling(c)}` : ruling(c);
}

function ruling(c: StoredAuditToolCall): string {
  const v = c.verdict;
  switch (v.kind) {
    case 'default':
      return 'On by default: a first-party tool that only reads.';
    case 'auto':
      return `Allowed automatically: ${v.rule ?? 'by the policy.'}`;
    case 'allowed':
      return `Allowed by you (${v.decision === 'allow_session' ? 'for this session' : 'once'})${asked(v.rule)}`;
    case 'denied':
      return `Denied by you${v.reason ? `: “${v.reason}”` : '.'}`;
    case 'rejected':
      return `Not run: ${v.rule ?? 'refused by the policy.'}`;
    case 'undecided':
      return 'It waited for your decision, and the turn ended first.';
  }
}

const asked = (rule: string | null) => (rule ? ` — it asked because: ${rule}` : '.');

/** The verdict of an MCP client's call through /mcp, in a sentence (no person decides there yet). */
export function clientVerdictSentence(c: StoredAuditClientCall): string {
  const v = c.verdict;
  if (v.kind === 'auto') return `Allowed automatically: ${v.rule ?? 'by the policy.'}`;
  if (v.kind === 'undecided')
    return `Not run: it needs your approval${v.rule ? ` (${v.rule})` : ''}, which MCP clients cannot ask for yet.`;
  return `Not run: ${v.rule ?? 'refused by the policy.'}`;
}

export function durationText(c: StoredAuditToolCall | StoredAuditClientCall): string | null {
  return c.timing.durationMs === null ? null : formatDuration(c.timing.durationMs);
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/** The title line of an entry: which tool, or which grant. */
export function entryTitle(e: ActivityEntry): string {
  const c = e.content;
  if (c.kind === 'tool_call') return c.server.name && c.tool ? `${c.server.name} · ${c.tool}` : c.modelName;
  if (c.kind === 'client_call') return c.server.name ? `${c.server.name} · ${c.tool}` : c.name;
  return grantTitle(c);
}

function grantTitle(c: StoredAuditGrant): string {
  const what = c.tool ? `${c.server?.name ?? 'server'} · ${c.tool}` : `${c.server?.name ?? c.scope} (every tool)`;
  return `Grant: ${what}`;
}

/** What a verification says, in words, and how loudly. */
export function verifyNotice(r: VerifyResult): { tone: 'success' | 'error'; title: string; text: string } {
  if (r.ok) {
    const pruned = r.prunedThroughSeq ? ` Entries 1–${r.prunedThroughSeq} were removed by the retention period, as expected.` : '';
    return {
      tone: 'success',
      title: 'Your activity log is intact',
      text: `${r.checked} ${r.checked === 1 ? 'entry' : 'entries'} checked: none was changed or removed.${pruned}`,
    };
  }
  return { tone: 'error', title: `Your activity log was tampered with at entry ${r.seq}`, text: r.message };
}
