// What the Tools panel reads from GET /api/conversations/:id/tools, and every decision the panel
// makes about it (labels, expiry in words, which controls show, the bodies it sends), without
// React: tools-view.test.ts covers it.

import { annotationBadges, type AnnotationBadge } from '@/app/_components/servers/server-view';
import type { BadgeTone } from '@/app/_components/ui';
import type { GrantExpiry, ToolState } from '@/db/vocabulary';
import { choiceProblem, constraintFor, type ConstraintChoice, type ConstraintKind } from '@/lib/consent/constraints';
import type { ConversationToolsView, GrantView, ServerEntry, ToolEntry } from '@/lib/consent/tools-view';

// ---- The contract: what GET …/tools and PUT / DELETE …/grants answer (lib/consent/tools-view.ts) ----

export type { GrantExpiry, ToolState } from '@/db/vocabulary';
export type { ConversationToolsView, GrantView, ServerEntry, ToolEntry } from '@/lib/consent/tools-view';

/** The body of PUT /api/conversations/:id/grants. */
export interface GrantBody {
  scope: string;
  enabled: boolean;
  autoApprove?: boolean;
  constraint?: Record<string, unknown> | null;
  expiresIn?: GrantExpiry;
}

// ---- Words ----

export const EXPIRY_CHOICES: { value: GrantExpiry; label: string }[] = [
  { value: '1h', label: '1 hour' },
  { value: '12h', label: '12 hours' },
  { value: 'session', label: 'Until sign-out' },
];

export const PLAN_LABEL: Record<ConversationToolsView['plan']['name'], string> = {
  free: 'Free plan',
  pro: 'Pro plan',
  enterprise: 'Enterprise plan',
};

/**
 * "3 of 5 granted" (or "3 granted" on a plan without a limit), whether the limit is reached, and the
 * plan in words. The plan counts the tools switched on by a grant; the defaults do not count.
 */
export function planCount(plan: ConversationToolsView['plan']): { text: string; full: boolean; title: string } {
  const { used, max } = plan.enabledTools;
  if (max === null) return { text: `${used} granted`, full: false, title: `${PLAN_LABEL[plan.name]}: no limit on tools per conversation.` };
  return {
    text: `${used} of ${max} granted`,
    full: used >= max,
    title: `${PLAN_LABEL[plan.name]}: up to ${max} tools switched on per conversation; tools on by default do not count.`,
  };
}

/** How long a grant lasts, in words: "until you sign out", "expires in 11 h", "expires in 40 min". */
export function expiryWords(grant: Pick<GrantView, 'expiresAt' | 'expiresIn'>, now: number): string {
  if (grant.expiresIn === 'session' && !grant.expiresAt) return 'until you sign out';
  if (!grant.expiresAt) return 'until you sign out';
  const left = Date.parse(grant.expiresAt) - now;
  const suffix = grant.expiresIn === 'session' ? ' (or when you sign out)' : '';
  if (!Number.isFinite(left) || left <= 0) return 'expired';
  const minutes = Math.ceil(left / 60_000);
  if (minutes < 60) return `expires in ${minutes} min${suffix}`;
  return `expires in ${Math.round(minutes / 60)} h${suffix}`;
}

/** A grant's expiry as the start of a sentence: "Expires in 11 h", "Until you sign out". */
export function expirySentence(grant: Pick<GrantView, 'expiresAt' | 'expiresIn'>, now: number): string {
  const words = expiryWords(grant, now);
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** A tool's state as a badge: words, never colour alone. */
export const STATE_BADGE: Record<ToolState, { label: string; tone: BadgeTone } | null> = {
  default_on: { label: 'on by default', tone: 'success' },
  granted: { label: 'on', tone: 'success' },
  off: null,
  switched_off: { label: 'switched off', tone: 'neutral' },
  suspended: { label: 'changed — suspended', tone: 'warning' },
  expired: { label: 'expired', tone: 'neutral' },
  left_out: { label: 'left out', tone: 'neutral' },
};

/**
 * The servers page's annotation badges, from the hints the tools view sends. An untrusted server's
 * "read-only" is only its claim (the decision table does not rely on it), worded as on the tool card.
 */
export function hintBadges(hints: ToolEntry['hints'], trust: ServerEntry['trust']): AnnotationBadge[] {
  const badges = annotationBadges(
    hints.annotated ? { readOnlyHint: hints.readOnly, destructiveHint: hints.destructive, openWorldHint: hints.openWorld } : null,
  );
  if (trust === 'trusted') return badges;
  return badges.map((b) =>
    b.key === 'read'
      ? { ...b, label: 'claims read-only', title: 'An untrusted server says this tool only reads; Switchboard does not rely on it.' }
      : b,
  );
}

// ---- Which controls a tool shows ----

export interface ToolControls {
  /** The on/off switch (absent for a left-out tool that cannot be switched on). */
  toggle: boolean;
  /** The auto-approve checkbox; when not allowed, the reason shows as a hint instead. */
  autoApprove: { show: boolean; allowed: boolean; checked: boolean; hint: string | null };
  /** The argument constraint: its words, and whether it can be set or removed. */
  constraint: { show: boolean; words: string | null };
  expiry: string | null;
  /** One-click revoke of the grant (a stored grant only; a default is switched off instead). */
  revoke: boolean;
  /** Suspended: the diff and "Review and enable again". */
  review: boolean;
  /** Why it is not offered, in words. */
  leftOut: string | null;
  /** On through the server-wide grant: its settings are the server's, changed on the server's switch. */
  viaServer: boolean;
}

export function toolControls(tool: ToolEntry, now: number, describe: (c: Record<string, unknown>) => string): ToolControls {
  const suspended = tool.state === 'suspended';
  const leftOut = tool.leftOut && tool.leftOut.reason !== 'suspended' ? tool.leftOut.message : null;
  const viaServer = tool.state === 'granted' && tool.grant !== null && tool.grant.scope !== tool.scope;
  const granted = tool.state === 'granted' && tool.grant !== null && !viaServer;
  return {
    viaServer,
    toggle: !suspended && !viaServer && !(tool.state === 'left_out' && tool.leftOut?.reason !== 'over_plan'),
    autoApprove: {
      show: granted,
      allowed: tool.autoApprove.allowed,
      checked: Boolean(tool.grant?.autoApprove),
      hint: tool.autoApprove.allowed ? null : tool.autoApprove.reason,
    },
    constraint: { show: granted, words: tool.grant?.constraint ? describe(tool.grant.constraint) : null },
    expiry: granted ? expirySentence(tool.grant!, now) : null,
    revoke: granted,
    review: suspended,
    leftOut: leftOut ?? (suspended ? (tool.leftOut?.message ?? null) : null),
  };
}

/** The tool is on for this conversation (the switch shows on). */
export function isOn(tool: ToolEntry): boolean {
  return tool.state === 'default_on' || tool.state === 'granted';
}

/** A server-wide switch is on when a server grant is active. */
export function serverOn(server: ServerEntry): boolean {
  return server.grant !== null;
}

/** The label of a tool: its title when it has one that says more than the name. */
export function toolLabel(tool: Pick<ToolEntry, 'name' | 'title'>): string {
  return tool.title && tool.title !== tool.name ? tool.title : tool.name;
}

// ---- The bodies the panel sends ----

/** Switching a tool (or a server) on or off; "on" carries the chosen expiry. */
export function switchBody(scope: string, on: boolean, expiresIn: GrantExpiry): GrantBody {
  return on ? { scope, enabled: true, expiresIn } : { scope, enabled: false };
}

/** Changing one setting of an existing grant: the other settings and its expiry are sent again unchanged. */
export function updateBody(grant: GrantView, change: { autoApprove?: boolean; constraint?: Record<string, unknown> | null }): GrantBody {
  return {
    scope: grant.scope,
    enabled: true,
    autoApprove: change.autoApprove ?? grant.autoApprove,
    constraint: change.constraint !== undefined ? change.constraint : grant.constraint,
    expiresIn: grant.expiresIn,
  };
}

/**
 * "Review and enable again" for a suspended tool: a new grant for the definition as it is now. The
 * narrowing constraint is kept; auto-approve is not carried over, since what it approved changed.
 */
export function reenableBody(tool: ToolEntry, expiresIn: GrantExpiry): GrantBody {
  return {
    scope: tool.grant?.scope ?? tool.scope,
    enabled: true,
    autoApprove: false,
    constraint: tool.grant?.constraint ?? null,
    expiresIn: tool.grant?.expiresIn ?? expiresIn,
  };
}

/** Where an API error goes in a tool row: under the constraint form, the auto-approve box, or the row. */
export function errorPlace(field: string | undefined): 'constraint' | 'autoApprove' | 'row' {
  if (field?.startsWith('constraint')) return 'constraint';
  if (field === 'autoApprove') return 'autoApprove';
  return 'row';
}

// ---- The constraint form ----

export type ConstraintForm = { kind: ConstraintKind; field: string; value: string };

export const CONSTRAINT_KINDS: { value: ConstraintKind; label: string; placeholder: string }[] = [
  { value: 'path_prefix', label: 'Starts with', placeholder: '/notes/projects/' },
  { value: 'exact', label: 'Is exactly', placeholder: 'the value' },
  { value: 'one_of', label: 'Is one of', placeholder: 'one value per line' },
];

/** The top-level arguments a tool declares, with their JSON types (from what the model is offered). */
export function argumentsOf(view: ConversationToolsView, tool: ToolEntry): { name: string; type: string | null }[] {
  const offered = tool.modelName ? view.offered.find((o) => o.name === tool.modelName) : undefined;
  const props = offered?.inputSchema.properties;
  if (!props || typeof props !== 'object') return [];
  return Object.entries(props as Record<string, { type?: unknown }>).map(([name, s]) => ({
    name,
    type: typeof s?.type === 'string' ? s.type : null,
  }));
}

function scalarFrom(text: string, type: string | null): string | number | boolean {
  if ((type === 'number' || type === 'integer') && text.trim() !== '' && Number.isFinite(Number(text))) return Number(text);
  if (type === 'boolean' && (text === 'true' || text === 'false')) return text === 'true';
  return text;
}

/** The constraint the form describes, or the problem to show under it (field: which input). */
export function constraintFromForm(
  form: ConstraintForm,
  type: string | null,
): { constraint: Record<string, unknown> } | { problem: { field: string; message: string } } {
  const field = form.field.trim();
  let choice: ConstraintChoice;
  if (form.kind === 'exact') choice = { kind: 'exact', field, value: scalarFrom(form.value, type) };
  else if (form.kind === 'one_of') {
    const values = form.value
      .split('\n')
      .map((v) => v.trim())
      .filter(Boolean)
      .map((v) => scalarFrom(v, type));
    choice = { kind: 'one_of', field, values };
  } else choice = { kind: 'path_prefix', field, prefix: form.value.trim() };
  const problem = choiceProblem(choice);
  if (problem) return { problem: { field: problem.field === 'field' ? 'field' : 'value', message: problem.message } };
  return { constraint: constraintFor(choice) };
}

/** How many tools the model is offered here (the Tools button's count). */
export function enabledCount(view: ConversationToolsView): number {
  return view.servers.reduce((n, s) => n + s.tools.filter((t) => t.enabled).length, 0);
}
