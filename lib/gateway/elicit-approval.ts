import { createHmac } from 'node:crypto';
import {
  CLIENT_CAPABILITIES_META_KEY,
  createRequestStateCodec,
  inputRequired,
  type InputRequiredResult,
  type RequestStateCodec,
} from '@modelcontextprotocol/server';
import { z } from 'zod';

import type { ClientApprovalRow } from '@/db/queries/client-approvals';
import { CLIENT_DECISION_KINDS, type ClientDecisionKind } from '@/db/vocabulary';

/**
 * Asking for a client's call's approval by MCP elicitation too (2026-07-28 only: `input_required`
 * with a form; the 2025-11-25 stateless path cannot elicit). The call stays in the inbox all the
 * while: the first answer, the person's in Switchboard or the one through the client's form, wins
 * (one conditional update, ./approvals.ts); the other is withdrawn — the inbox card goes, and a form
 * answered after a decision in Switchboard changes nothing.
 *
 * The request state names the waiting row, sealed with a key every instance derives from the app's
 * secret (any instance may get the retried call); the row is still read back for the same person,
 * client, tool and arguments.
 */

/** The key of the one question in `inputRequests`. */
export const APPROVAL_INPUT = 'approval';

const DECISION_FIELD = {
  type: 'string',
  title: 'Your decision',
  enum: [...CLIENT_DECISION_KINDS],
  enumNames: ['Allow once', 'Deny'],
} as const;

/** The request-state key every instance derives from the app's secret (AUTH_SECRET), for this use only. */
export function requestStateKey(appSecret: string): Uint8Array {
  return new Uint8Array(createHmac('sha256', appSecret).update('switchboard /mcp request state').digest());
}

export type ApprovalStateCodec = RequestStateCodec<{ approvalId: string }>;

export function approvalStateCodec(key: Uint8Array, ttlSeconds: number): ApprovalStateCodec {
  return createRequestStateCodec<{ approvalId: string }>({ key, ttlSeconds });
}

/** The request declared form elicitation in its capabilities (a modern request's `_meta` envelope). */
export function declaresFormElicitation(envelope: unknown): boolean {
  const caps = (envelope as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES_META_KEY];
  const parsed = z.object({ elicitation: z.object({ form: z.unknown().optional(), url: z.unknown().optional() }) }).safeParse(caps);
  if (!parsed.success) return false;
  // `elicitation: {}` means form (the spec's default); `{ url: {} }` alone does not.
  const { form, url } = parsed.data.elicitation;
  return form !== undefined || url === undefined;
}

export async function askByElicitation(codec: ApprovalStateCodec, row: ClientApprovalRow): Promise<InputRequiredResult> {
  const message =
    `Switchboard: ${row.clientName} wants to run ${row.tool} on ${row.serverName} (${row.reason}) with these arguments:\n` +
    `${JSON.stringify(row.input, null, 2)}\nAllow it once? You can also decide in Switchboard's "Other clients" inbox.`;
  return inputRequired({
    inputRequests: {
      [APPROVAL_INPUT]: inputRequired.elicit({
        message,
        requestedSchema: { type: 'object', properties: { decision: DECISION_FIELD }, required: ['decision'] },
      }),
    },
    requestState: await codec.mint({ approvalId: row.id }),
  });
}

const answer = z.object({
  action: z.enum(['accept', 'decline', 'cancel']),
  content: z.object({ decision: z.enum(CLIENT_DECISION_KINDS) }).optional(),
});

/**
 * The decision a retried call carries: accept with a decision, or decline (a no). A cancelled form,
 * or none, is no answer: the call goes on waiting for the person in Switchboard.
 */
export function elicitedDecision(inputResponses: Record<string, unknown> | undefined): ClientDecisionKind | null {
  const parsed = answer.safeParse(inputResponses?.[APPROVAL_INPUT]);
  if (!parsed.success) return null;
  if (parsed.data.action === 'decline') return 'deny';
  if (parsed.data.action === 'accept') return parsed.data.content?.decision ?? null;
  return null;
}
