import { z } from 'zod';

import type { Db } from '@/db/connection';
import {
  insertAccessTokenUnderCap,
  listLiveAccessTokens,
  revokeAccessToken as revokeRow,
  tokenProfileOf,
  updateAccessToken as updateRow,
} from '@/db/queries/access-tokens';
import { EMPTY_TOKEN_PROFILE, type StoredTokenProfile } from '@/db/stored-json';
import { ACCESS_TOKEN_EXPIRIES, type AccessTokenExpiry } from '@/db/vocabulary';
import { newAccessToken } from '@/lib/auth/access-tokens';
import { AppError } from '@/lib/http/errors';
import { limitExceeded, limitsFor } from '@/lib/limits';

const DAY_MS = 24 * 60 * 60_000;
const LIFETIME_DAYS: Record<AccessTokenExpiry, number> = { '7d': 7, '30d': 30, '90d': 90, '1y': 365 };
/** What a new token gets when the request does not say: a month, so a forgotten token goes stale by itself. */
export const DEFAULT_ACCESS_TOKEN_EXPIRY: AccessTokenExpiry = '30d';
export const ACCESS_TOKEN_NAME_MAX = 100;
/** Tools one token may expose: more than any person picks by hand, few enough to keep the row small. */
export const ACCESS_TOKEN_TOOLS_MAX = 500;

const EXPIRY_WORDS = `must be one of ${ACCESS_TOKEN_EXPIRIES.map((e) => `"${e}"`).join(', ')}, or null for a token that never expires`;

const tokenName = z
  .string({ error: 'must be text: a name to recognise the token by, e.g. "CI" or "laptop"' })
  .trim()
  .min(1, 'is required: a name to recognise the token by, e.g. "CI" or "laptop"')
  .max(ACCESS_TOKEN_NAME_MAX, `must be at most ${ACCESS_TOKEN_NAME_MAX} characters`);
/** Tools by the names the chat gives them (`<server namespace>__<tool>`); lib/gateway/profile.ts resolves them. */
const toolNames = z
  .array(z.string({ error: 'each entry must be a tool name such as "notes__search"' }).max(200), {
    error: 'must be a list of tool names such as ["notes__search"] (an empty list exposes nothing)',
  })
  .max(ACCESS_TOKEN_TOOLS_MAX, `must list at most ${ACCESS_TOKEN_TOOLS_MAX} tools`);

/**
 * `POST /api/account/tokens`: a name to recognise the token by, how long it lives (null: no
 * expiry), and which tools it exposes on /mcp (none unless listed).
 */
export const createAccessTokenSchema = z
  .object({
    name: tokenName,
    expiresIn: z.enum(ACCESS_TOKEN_EXPIRIES, { error: EXPIRY_WORDS }).nullable().default(DEFAULT_ACCESS_TOKEN_EXPIRY),
    tools: toolNames.default([]),
  })
  .strict();

export type CreateAccessTokenInput = z.infer<typeof createAccessTokenSchema>;

/**
 * `PATCH /api/account/tokens/:id`: a new name, the whole new list of exposed tools, whether a call
 * that needs approval is also asked in the client's own window (`askInClient`), whether the client
 * sees the servers' own tool and prompt names while nothing clashes (`ownNames`,
 * lib/gateway/client-names.ts), whether it also reads the exposed servers' resources and prompts
 * (`content`, lib/gateway/content.ts), and/or whether Switchboard's own agent is offered to it as
 * `switchboard_ask` (`agentTool`).
 */
export const updateAccessTokenSchema = z
  .object({
    name: tokenName.optional(),
    tools: toolNames.optional(),
    askInClient: z.boolean({ error: 'must be true or false' }).optional(),
    ownNames: z.boolean({ error: 'must be true or false' }).optional(),
    content: z.boolean({ error: 'must be true or false' }).optional(),
    agentTool: z.boolean({ error: 'must be true or false' }).optional(),
  })
  .strict()
  .refine((v) => Object.values(v).some((value) => value !== undefined), {
    message: 'give at least one of name, tools, askInClient, ownNames, content or agentTool',
  });

/** A token as the owner's list shows it: never its hash, never the token. */
export interface AccessTokenView {
  id: string;
  name: string;
  /** The first characters of the token (`sbp_` and four more), to tell tokens apart. */
  prefix: string;
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  /** The tools it exposes on /mcp, by the names the person picked them under. */
  tools: string[];
  /** A call that needs approval is also asked in the client's own window (MCP elicitation). */
  askInClient: boolean;
  /** The client sees the servers' own names (no `<server>__` prefix) while nothing clashes. */
  ownNames: boolean;
  /** The client also reads the exposed servers' resources and prompts. */
  content: boolean;
  /** Switchboard's own agent is offered to the client as the tool `switchboard_ask` (lib/gateway/ask-tool.ts). */
  agentTool: boolean;
}

export function accessTokenExpiresAt(choice: AccessTokenExpiry | null, now: Date): Date | null {
  return choice === null ? null : new Date(now.getTime() + LIFETIME_DAYS[choice] * DAY_MS);
}

/**
 * Makes a token for the user. The answer carries the token this once: only its hash is stored,
 * so neither the list nor anything else can show it again.
 */
export async function createAccessToken(
  db: Db,
  user: { id: string; plan: string | null },
  /** `profile`: what it exposes, already resolved against the person's tools (lib/gateway/profile.ts); none by default. */
  input: Omit<CreateAccessTokenInput, 'tools'> & { profile?: StoredTokenProfile },
  now = new Date(),
): Promise<{ token: string } & AccessTokenView> {
  const profile = input.profile ?? EMPTY_TOKEN_PROFILE;
  const cap = limitsFor(user.plan).accessTokensPerUser;
  const { token, tokenHash, prefix } = newAccessToken();
  const expiresAt = accessTokenExpiresAt(input.expiresIn, now);
  const row = await insertAccessTokenUnderCap(db, { userId: user.id, name: input.name, tokenHash, prefix, expiresAt, profile }, cap, now);
  if (!row) {
    throw limitExceeded('accessTokensPerUser', cap, 'Revoke a token you no longer use before creating another.', user.plan);
  }
  return {
    token,
    id: row.id,
    name: input.name,
    prefix,
    createdAt: row.createdAt.toISOString(),
    expiresAt: expiresAt?.toISOString() ?? null,
    lastUsedAt: null,
    tools: profile.tools.map((t) => t.name),
    askInClient: profile.askInClient === true,
    ownNames: profile.ownNames === true,
    content: profile.content === true,
    agentTool: profile.agentTool === true,
  };
}

/** The user's tokens that still work, newest first. */
export async function listAccessTokens(db: Db, userId: string, now = new Date()): Promise<AccessTokenView[]> {
  const rows = await listLiveAccessTokens(db, userId, now);
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    prefix: r.prefix ?? '',
    createdAt: r.createdAt.toISOString(),
    expiresAt: r.expiresAt?.toISOString() ?? null,
    lastUsedAt: r.lastUsedAt?.toISOString() ?? null,
    tools: tokenProfileOf(r).tools.map((t) => t.name),
    askInClient: tokenProfileOf(r).askInClient === true,
    ownNames: tokenProfileOf(r).ownNames === true,
    content: tokenProfileOf(r).content === true,
    agentTool: tokenProfileOf(r).agentTool === true,
  }));
}

/** Renames a live token of the user and/or replaces what it exposes; another person's token is not found. */
export async function updateAccessToken(
  db: Db,
  userId: string,
  id: string,
  change: { name?: string; profile?: Partial<Omit<StoredTokenProfile, 'v'>> },
  now = new Date(),
): Promise<{ updated: true }> {
  if (!(await updateRow(db, userId, id, change, now))) throw new AppError('not_found', 'access_token', `No access token with id "${id}".`);
  return { updated: true };
}

/** Revokes one of the user's tokens at once; another person's (or an already revoked) token is not found. */
export async function revokeAccessToken(db: Db, userId: string, id: string, now = new Date()): Promise<{ revoked: true }> {
  if (!(await revokeRow(db, userId, id, now))) throw new AppError('not_found', 'access_token', `No access token with id "${id}".`);
  return { revoked: true };
}
