import type { Db } from '@/db/connection';
import { endAuthSessionsOfUser } from '@/db/queries/auth-sessions';
import {
  createUserWithIdentity,
  findUserByEmail,
  findUserByIdentity,
  linkVerifiedIdentity,
  normalizeEmail,
  type ProviderIdentity,
  type UserRow,
} from '@/db/queries/users';
import { getAuditKeyring } from '@/lib/audit/key';
import { logGrantsEndedAtSignOut } from '@/lib/consent/grant-audit';

import { ssoProviders } from './providers';
import { defaultPlan } from './signup';

/**
 * Which account a single sign-on lands in. The rules, in order:
 * 1. an identity linked before (provider + subject) is that account, whatever its email says
 *    now: a person whose address changed at the IdP still finds their account, and an address
 *    reassigned at the IdP to someone else does not reach it;
 * 2. an email that is no account's yet: the account is created just in time, and linked;
 * 3. an email that is an account's already: linked only when the provider vouches for the
 *    address (`email_verified: true` in the ID token). Anything less is refused — never linked,
 *    and never a second account with the same email. GitHub's profile carries no such claim, so
 *    a GitHub identity never joins an existing account by email.
 *    A password sign-up never checks its address, so an account whose email no provider has
 *    vouched for yet may be a squatter's (someone registered victim@corp first, waiting for the
 *    owner to arrive by SSO). Linking the owner's verified identity therefore removes that
 *    account's password, reset links and access tokens and ends its sessions: from then on only
 *    the IdP signs into it. An account whose email a provider proved before keeps its password.
 *
 * A new account joins its organizations through the `onCreated` seam (config.ts: the default
 * organization for the first account, the join domain of a verified email — lib/orgs).
 */

/** Why a sign-on was refused; the sign-in page has words for each (`?code=`). */
export const SSO_REFUSALS = ['sso_email_unverified', 'sso_no_email'] as const;
export type SsoRefusal = (typeof SSO_REFUSALS)[number];

export interface SsoIdentity extends ProviderIdentity {
  /** As the provider sent it, or null when it sent none. */
  email: string | null;
  /** Only an explicit `email_verified: true` counts. */
  emailVerified: boolean;
  name: string | null;
}

export type SsoOutcome = { ok: true; user: UserRow; how: 'known' | 'linked' | 'created' } | { ok: false; reason: SsoRefusal };

export interface SsoOptions {
  /** Called once for an account created just in time (organizations will hang off it). */
  onCreated?: (user: UserRow, identity: SsoIdentity) => Promise<void>;
  /** A token or connected client the takeover revoked: /mcp closes its open streams (McpEndpoint.clientRevoked). */
  onRevoked?: (clientId: string) => void;
}

export async function resolveSsoUser(db: Db, identity: SsoIdentity, opts: SsoOptions = {}): Promise<SsoOutcome> {
  const email = identity.email?.trim() ? normalizeEmail(identity.email) : null;
  // Twice at most: a first sign-in racing another of the same person (two tabs) finds, on the
  // second pass, the account and the link the other made.
  for (let attempt = 0; attempt < 2; attempt++) {
    const known = await findUserByIdentity(db, identity);
    if (known) return { ok: true, user: known, how: 'known' };
    if (!email) return { ok: false, reason: 'sso_no_email' };
    const existing = await findUserByEmail(db, email);
    if (existing) {
      if (!identity.emailVerified) {
        if (attempt === 0) continue;
        return { ok: false, reason: 'sso_email_unverified' };
      }
      const link = await linkVerifiedIdentity(db, identity, existing, providerName(identity.provider));
      if (!link.linked) continue;
      for (const id of link.revokedTokenIds) opts.onRevoked?.(id);
      // Every session so far was opened with the password that is gone (the new one is made after this).
      if (link.tookOver) await endAuthSessionsOfUser(db, existing.id, null, new Date(), logGrantsEndedAtSignOut(await getAuditKeyring()));
      return { ok: true, user: existing, how: 'linked' };
    }
    const emailVerifiedAt = identity.emailVerified ? new Date() : null;
    const created = await createUserWithIdentity(db, { email, name: identity.name, plan: defaultPlan(), emailVerifiedAt }, identity);
    if (created) {
      await opts.onCreated?.(created, identity);
      return { ok: true, user: created, how: 'created' };
    }
  }
  throw new Error('single sign-on: the account changed under two attempts to link it');
}

/** "Acme ID" for `oidc`: the name the sign-in page shows (the id when the provider is no longer configured). */
function providerName(id: string): string {
  return ssoProviders().find((p) => p.id === id)?.name ?? id;
}

/** The identity Auth.js hands the sign-in callback, read the one way: the claims as the provider sent them. */
export function identityFromProfile(
  provider: string,
  subject: string,
  profile: Record<string, unknown> | undefined,
  user: { email?: string | null; name?: string | null },
): SsoIdentity {
  const email = typeof profile?.email === 'string' ? profile.email : (user.email ?? null);
  const name = typeof profile?.name === 'string' ? profile.name : (user.name ?? null);
  return { provider, subject, email, emailVerified: profile?.email_verified === true, name };
}
